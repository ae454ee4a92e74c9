// Renders report.html in headless Chromium, a small run and a fleet, and keeps the screenshots (build/test-out/
// report.png, report-fleet.png) for a human to look at. Skipped (tests/skip.hpp) when /usr/bin/chromium is absent
// (scripts/install-deps.sh installs it).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "reports/html.hpp"
#include "tests/e2e/cli_support.hpp"
#include "tests/reports/record_fixture.hpp"
#include "tests/skip.hpp"

namespace fs = std::filesystem;

namespace {

// Renders `html` to build/test-out/<png> at 1400 x `height` and checks that a real picture came out.
void render(const tt::RunRecord& record, const std::string& name, int height) {
  const fs::path chromium = "/usr/bin/chromium";
  if (!fs::exists(chromium))
    TT_SKIP(chromium.string() + " is absent; run scripts/install-deps.sh to render report.html");
  auto dir = tt::testing::scratch_dir("browser-" + name);
  const fs::path html = dir / "report.html";
  const fs::path png = fs::path(TT_BINARY_DIR) / "test-out" / (name + ".png");
  std::ofstream(html, std::ios::binary) << tt::report_html(record);
  fs::remove(png);

  const std::string cmd = "timeout 120 " + chromium.string() +
                          " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                          " --disable-background-networking --disable-component-update --disable-sync"
                          " --user-data-dir=" +
                          (dir / "profile").string() + " --screenshot=" + png.string() +
                          " --window-size=1400," + std::to_string(height) + " file://" + html.string() + " > " +
                          (dir / "chromium.log").string() + " 2>&1";
  int status = std::system(cmd.c_str());
  INFO(cmd << "\n" << tt::testing::read_file(dir / "chromium.log"));
  CHECK(status == 0);
  REQUIRE(fs::exists(png));
  CHECK(fs::file_size(png) > 20000);  // a blank 1400x2000 page compresses to a few KiB
  CHECK(tt::testing::read_file(png).rfind("\x89PNG\r\n\x1a\n", 0) == 0);
}

}  // namespace

TEST_CASE("html: headless Chromium renders report.html", "[reports][browser]") {
  render(tt::testing::busy_record(), "report", 2000);
}

TEST_CASE("html: headless Chromium renders the fleet view of report.html", "[reports][browser]") {
  render(tt::testing::fleet_record(548), "report-fleet", 3000);
}
