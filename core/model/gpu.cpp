#include "core/model/gpu.hpp"

namespace tt {

const std::vector<GpuSpec>& gpu_catalog() {
  // NVLink figures are per direction (the datasheets quote the bidirectional total: 600/900/1800 GB/s).
  // NVLS: third-generation NVSwitch (HGX H100/H200) and later reduce in the switch (NVLink SHARP); the A100's
  // second-generation NVSwitch does not.
  static const std::vector<GpuSpec> catalog = {
      {"A100-SXM", FlopsPerSecond(312e12), Bytes(80e9), BytesPerSecond(300e9),
       "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB): 312 TFLOPS BF16 dense, NVLink 600 GB/s",
       80, false},
      {"H100-SXM", FlopsPerSecond(989e12), Bytes(80e9), BytesPerSecond(450e9),
       "NVIDIA H100 Tensor Core GPU datasheet (SXM5): 989 TFLOPS BF16 dense, NVLink 900 GB/s",
       90, true},
      {"H200", FlopsPerSecond(989e12), Bytes(141e9), BytesPerSecond(450e9),
       "NVIDIA H200 Tensor Core GPU datasheet (SXM): 989 TFLOPS BF16 dense, 141 GB HBM3e, NVLink 900 GB/s",
       90, true},
      {"B200", FlopsPerSecond(2250e12), Bytes(180e9), BytesPerSecond(900e9),
       "NVIDIA HGX B200 datasheet: 2.25 PFLOPS BF16 dense per GPU, 180 GB HBM3e, NVLink 1.8 TB/s",
       100, true},
      {"GB200", FlopsPerSecond(2500e12), Bytes(186e9), BytesPerSecond(900e9),
       "NVIDIA GB200 NVL72 datasheet, per GPU of 72: 180 PFLOPS BF16 dense, 13.4 TB HBM3e, NVLink 130 TB/s",
       100, true},
  };
  return catalog;
}

const GpuSpec* find_gpu(std::string_view name) {
  for (const auto& g : gpu_catalog())
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace tt
