// Small helpers for telling file kinds by their names (matrix_source.cpp, vector_io.cpp).
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace distspmv::io::detail {

/// `s` in lower case (ASCII), for case-insensitive extensions.
inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

inline bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace distspmv::io::detail
