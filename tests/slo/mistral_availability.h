// The Sloth file the engine's tests share: the availability of a Triton-shaped mistral server, 99%.
#pragma once

namespace gpuwatch::slo::test {

inline constexpr const char* kMistralAvailability = R"(version: "prometheus/v1"
service: "mistral"
slos:
  - name: "availability"
    objective: 99
    sli:
      events:
        error_query: sum(rate(nv_inference_request_failure{model="mistral"}[{{.window}}]))
        total_query: sum(rate(nv_inference_request_success{model="mistral"}[{{.window}}])) + sum(rate(nv_inference_request_failure{model="mistral"}[{{.window}}]))
)";

}  // namespace gpuwatch::slo::test
