#include "reports/junit.hpp"

#include <catch2/catch.hpp>

#include "reports/text.hpp"
#include "tests/reports/record_fixture.hpp"

namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("junit: one testcase per check, one failure with expected and measured", "[reports]") {
  std::string xml = tt::junit_xml(tt::testing::sample_record());
  CHECK(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0) == 0);
  CHECK(count(xml, "<testsuite ") == 1);
  CHECK_THAT(xml, Catch::Contains("<testsuite name=\"mini\" tests=\"3\" failures=\"1\""));
  CHECK(count(xml, "<testcase ") == 3);
  CHECK(count(xml, "classname=\"traintwin.mini\"") == 3);
  CHECK(count(xml, "<failure ") == 1);
  CHECK_THAT(xml, Catch::Contains("name=\"eval-b ends within 40m\""));
  CHECK_THAT(xml, Catch::Contains("message=\"expected job.end(eval-b) &lt;= 40m 00s; measured 41m 40s\""));
  CHECK_THAT(xml, Catch::Contains("expected: &lt;= 2400\nmeasured: 2500\n"));
  CHECK_THAT(xml, Catch::Contains("<property name=\"driver.network/model\" value=\"CM02\"/>"));
  CHECK(xml == tt::junit_xml(tt::testing::sample_record()));
}

TEST_CASE("junit: every string is XML-escaped", "[reports]") {
  tt::RunRecord r = tt::testing::sample_record();
  r.scenario = "a<b>&\"c'";
  r.checks[2].name = "end < 40m & \"soon\"";
  r.checks[2].message = "bad\x01 byte \xff and <tag>";
  std::string xml = tt::junit_xml(r);
  CHECK_THAT(xml, Catch::Contains("<testsuite name=\"a&lt;b&gt;&amp;&quot;c&#39;\""));
  CHECK_THAT(xml, Catch::Contains("classname=\"traintwin.a&lt;b&gt;&amp;&quot;c&#39;\""));
  CHECK_THAT(xml, Catch::Contains("name=\"end &lt; 40m &amp; &quot;soon&quot;\""));
  CHECK_THAT(xml, Catch::Contains("message=\"bad\xEF\xBF\xBD byte \xEF\xBF\xBD and &lt;tag&gt;\""));
  CHECK(xml.find("<b>") == std::string::npos);
  CHECK(xml.find('\x01') == std::string::npos);
}

TEST_CASE("xml_escape: markup, line breaks, control bytes and invalid UTF-8", "[reports]") {
  CHECK(tt::xml_escape("<a href='x'>&\"</a>") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  CHECK(tt::xml_escape("a\nb\tc") == "a&#10;b&#9;c");
  CHECK(tt::xml_escape_text("a\nb\tc") == "a\nb\tc");
  CHECK(tt::xml_escape("caf\xC3\xA9 \xE2\x86\xBB") == "caf\xC3\xA9 \xE2\x86\xBB");  // valid UTF-8 stays
  CHECK(tt::xml_escape("\xC3") == "\xEF\xBF\xBD");                                  // truncated sequence
  CHECK(tt::xml_escape("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong
  CHECK(tt::xml_escape(std::string("a\0b", 3)) ==
        "a\xEF\xBF\xBD"
        "b");
}
