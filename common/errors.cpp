// Anchors the error hierarchy in the common library (vtables, and a home for later helpers).
#include "common/errors.hpp"
