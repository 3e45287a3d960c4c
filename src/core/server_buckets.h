// The latency buckets the model servers export by default, in seconds: vLLM's request latency and time to
// first token, and the coarser ladder of TGI's request duration (which the simulator also gives Triton's
// first-response histogram). One list for the simulator that serves them and the SLO templates that count
// requests under one of their bounds.
#pragma once

#include <vector>

namespace gpuwatch {

inline const std::vector<double>& vllm_e2e_buckets() {
  static const std::vector<double> k = {0.3,  0.5,   0.8,   1.0,   1.5,   2.0,    2.5,
                                        5.0,  10.0,  15.0,  20.0,  30.0,  40.0,   50.0,
                                        60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
  return k;
}

inline const std::vector<double>& vllm_ttft_buckets() {
  static const std::vector<double> k = {0.001, 0.005, 0.01, 0.02,  0.04,  0.06,  0.08, 0.1,
                                        0.25,  0.5,   0.75, 1.0,   2.5,   5.0,   7.5,  10.0,
                                        20.0,  40.0,  80.0, 160.0, 640.0, 2560.0};
  return k;
}

inline const std::vector<double>& tgi_duration_buckets() {
  static const std::vector<double> k = {0.005, 0.01, 0.025, 0.05, 0.1,  0.25, 0.5,
                                        1.0,   2.5,  5.0,   10.0, 30.0, 60.0};
  return k;
}

}  // namespace gpuwatch
