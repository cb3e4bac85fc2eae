// The compute backend: CPU (OpenMP) or CUDA, chosen once at start.
#pragma once

#include <string>

namespace cb {

enum class Backend { Cpu, Cuda };

/// What the user asked for: `Auto` picks CUDA where a device answers, else CPU.
enum class BackendRequest { Auto, Cpu, Cuda };

/// Everything a kernel launch needs to know about where it runs. Passed by value;
/// it holds no resources.
struct Context {
  Backend backend = Backend::Cpu;
  int device = 0;  ///< CUDA device ordinal (Cuda only)
  bool is_cuda() const { return backend == Backend::Cuda; }
};

/// Parses "auto" | "cpu" | "cuda"; throws cb::Error naming the bad word.
BackendRequest parse_backend(const std::string& word);
const char* backend_name(Backend b);

/// True when this binary was built with the CUDA backend.
bool cuda_compiled();

/// Number of CUDA devices that answer, 0 without a driver or build support;
/// `why` (optional) receives the reason when it is 0.
int cuda_device_count(std::string* why = nullptr);

/// Makes the context. `Auto` falls back to CPU and writes one line saying why to
/// `note` (if given); an explicit `Cuda` request without a device throws cb::Error.
Context make_context(BackendRequest request, std::string* note = nullptr);

/// Blocks until all work queued on the backend is done (no-op on the CPU).
void synchronize(const Context& ctx);

/// Starts (`on`) or stops the CUDA profiler's capture (cudaProfilerStart /
/// Stop): under `ncu --profile-from-start off` only the kernels between the two
/// are profiled. No-op on the CPU.
void profiler_capture(const Context& ctx, bool on);

/// Bytes of device memory in use / total on the CUDA device (0/0 on CPU).
void device_memory(const Context& ctx, size_t* used, size_t* total);

}  // namespace cb
