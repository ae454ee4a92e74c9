#include <catch2/catch.hpp>

#include "core/model/model_spec.hpp"

using namespace tt;

TEST_CASE("model presets have their published parameter counts", "[unit]") {
  CHECK(find_model_preset("llama3-8b")->parameters() == Approx(8.0e9).epsilon(0.02));
  CHECK(find_model_preset("llama3-70b")->parameters() == Approx(70.6e9).epsilon(0.02));
  CHECK(find_model_preset("gpt3-175b")->parameters() == Approx(175e9).epsilon(0.02));
  CHECK(find_model_preset("llama3-405b")->parameters() == Approx(405e9).epsilon(0.02));
}

TEST_CASE("unknown model presets are absent and the names are listed", "[unit]") {
  CHECK_FALSE(find_model_preset("llama3-7b"));
  auto names = model_preset_names();
  CHECK(std::find(names.begin(), names.end(), "llama3-70b") != names.end());
  CHECK(names.size() == 4);
}

TEST_CASE("training flops per token are six per parameter plus attention", "[unit]") {
  auto m = *find_model_preset("llama3-8b");
  double expected = 6 * m.parameters() + 12.0 * 32 * 8192 * 4096;
  CHECK(m.train_flops_per_token(8192) == Approx(expected));
}
