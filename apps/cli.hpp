// The command line of the distspmv program: every option and subcommand, defined on a CLI11 app
// without running anything, so that main() and tests/fuzz/fuzz_command_line.cpp parse the same
// command line (DESIGN.md §8).
#pragma once

#include <cstdint>
#include <string>

#include "apps/commands.hpp"
#include "apps/model/model.hpp"
#include "apps/solve.hpp"

namespace CLI {
class App;
}

namespace distspmv::app {

/// What the convert subcommand was given.
struct convert_options {
  std::string input, output;
  bool allow_nonfinite = false;
  std::uint64_t seed = 1;
};

/// What the info subcommand was given.
struct info_options {
  std::string source, json;
  bool allow_nonfinite = false;
  std::uint64_t seed = 1;
};

/// Every value the command line can set; filled by CLI::App::parse.
struct cli_options {
  run_options run;  ///< the main command (no subcommand)
  convert_options convert;
  info_options info;
  solve_options solve;
  model::options model;
};

/// The subcommands, for main() to test which one was given (`if (*commands.convert)`).
struct cli_commands {
  CLI::App* convert = nullptr;
  CLI::App* info = nullptr;
  CLI::App* solve = nullptr;
  CLI::App* model = nullptr;
};

/// Defines the options and subcommands of the distspmv program on `cli`, bound to `options`
/// (which must outlive `cli`). Parses nothing and touches no file.
/// @param format_help  the --format help text (main() lists the registered formats).
cli_commands define_cli(CLI::App& cli, cli_options& options, const std::string& format_help);

/// Defines the `model` subcommand (apps/model/model.hpp) on `cli`, bound to `options`.
CLI::App* add_model_command(CLI::App& cli, model::options& options);

}  // namespace distspmv::app
