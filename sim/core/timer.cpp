#include "sim/core/timer.h"

#include "sim/core/error.h"

#if CLOTHBOX_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace cb {

StageTimer::~StageTimer() {
#if CLOTHBOX_WITH_CUDA
  for (auto& m : marks_) {
    if (m.ev0) event_pool_.push_back(m.ev0);
    if (m.ev1) event_pool_.push_back(m.ev1);
  }
  for (void* e : event_pool_) cudaEventDestroy(static_cast<cudaEvent_t>(e));
#endif
}

void* StageTimer::take_event() {
#if CLOTHBOX_WITH_CUDA
  if (!event_pool_.empty()) {
    void* e = event_pool_.back();
    event_pool_.pop_back();
    return e;
  }
  cudaEvent_t e;
  CB_CUDA_CHECK(cudaEventCreate(&e));
  return e;
#else
  return nullptr;
#endif
}

void StageTimer::start_mark(const std::string& name) {
  Mark m;
  m.name = name;
  m.t0 = std::chrono::steady_clock::now();
#if CLOTHBOX_WITH_CUDA
  if (ctx_.is_cuda()) {
    m.ev0 = take_event();
    CB_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(m.ev0)));
  }
#endif
  marks_.push_back(m);
}

void StageTimer::stop_mark() {
  Mark& m = marks_.back();
  m.t1 = std::chrono::steady_clock::now();
#if CLOTHBOX_WITH_CUDA
  if (ctx_.is_cuda()) {
    m.ev1 = take_event();
    CB_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(m.ev1)));
  }
#endif
}

void StageTimer::begin(const std::string& name) {
  if (!open_.empty()) stop_mark();  // the outer stage pauses
  open_.push_back(name);
  start_mark(name);
}

void StageTimer::end() {
  if (open_.empty()) return;
  stop_mark();
  open_.pop_back();
  if (!open_.empty()) start_mark(open_.back());  // the outer stage resumes
}

StageTimes StageTimer::collect() {
  while (!open_.empty()) end();
#if CLOTHBOX_WITH_CUDA
  if (ctx_.is_cuda() && !marks_.empty()) CB_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(marks_.back().ev1)));
#endif
  StageTimes out;
  for (auto& m : marks_) {
    double ms = std::chrono::duration<double, std::milli>(m.t1 - m.t0).count();
#if CLOTHBOX_WITH_CUDA
    if (m.ev0 && m.ev1) {
      float gpu_ms = 0;
      CB_CUDA_CHECK(cudaEventElapsedTime(&gpu_ms, static_cast<cudaEvent_t>(m.ev0), static_cast<cudaEvent_t>(m.ev1)));
      ms = gpu_ms;
      event_pool_.push_back(m.ev0);
      event_pool_.push_back(m.ev1);
    }
#endif
    bool merged = false;
    for (auto& o : out)
      if (o.first == m.name) {
        o.second += ms;
        merged = true;
      }
    if (!merged) out.emplace_back(m.name, ms);
  }
  marks_.clear();
  return out;
}

}  // namespace cb
