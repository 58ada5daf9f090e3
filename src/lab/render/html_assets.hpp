// The files report.html inlines, compiled into the binary at build time: Chart.js from the
// Debian package libjs-chart.js, and the report's own script and style sheet.
#pragma once

#include <string>

namespace alloclab::lab::html_assets {

std::string chart_js();                     // /usr/share/javascript/chart.js/chart.min.js
extern const char* const chart_js_version;  // e.g. "3.9.1", from the file's banner
extern const char* const report_js;         // render/html_report.js: draws the charts
extern const char* const report_css;        // render/html_report.css: light, dark and print

}  // namespace alloclab::lab::html_assets
