// Errors: one exception type carrying a readable message. Input errors name the
// file and the element; CUDA errors name the source file, line and CUDA message.
#pragma once

#include <stdexcept>
#include <string>

namespace cb {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// Throws cb::Error("file:line: call failed: message") for a CUDA status != 0.
/// Defined in backend.cpp so that callers need no CUDA header.
[[noreturn]] void throw_cuda_error(int status, const char* expr, const char* file, int line);

}  // namespace cb

/// Checks a cudaError_t-returning call; throws cb::Error on failure.
#define CB_CUDA_CHECK(expr)                                                           \
  do {                                                                                \
    int cb_status_ = static_cast<int>(expr);                                          \
    if (cb_status_ != 0) ::cb::throw_cuda_error(cb_status_, #expr, __FILE__, __LINE__); \
  } while (0)
