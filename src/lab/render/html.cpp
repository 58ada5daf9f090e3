#include "render/html.hpp"

#include <md4c-html.h>

#include <stdexcept>

#include <fmt/format.h>

#include "render/html_assets.hpp"
#include "render/markdown.hpp"
#include "render/markdown_format.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

std::string escape_html(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The ratio and interval report.md shows for a cell (markdown_format.hpp vs_baseline_shown):
// the stop rule's paired interval where the run judged the cell paired, else the bootstrap.
json shown_json(const model::document& d, const model::workload& w, const model::cell& c) {
  const markdown::shown_ratio s = markdown::vs_baseline_shown(d, w, c);
  json shown = {{"value", s.value}, {"paired", s.paired}, {"low", nullptr}, {"high", nullptr}};
  const model::budget_comparison* p = markdown::paired_vs_baseline(d, w, c.head);
  const auto& bootstrap = c.vs_std->intervals.speedup_p50;
  if (p != nullptr) {
    shown["low"] = *p->low;
    shown["high"] = *p->high;
  } else if (bootstrap) {
    shown["low"] = bootstrap->low;
    shown["high"] = bootstrap->high;
  }
  return shown;
}

// The charts' copy of the results: each cell's vs_std gains `verdict`, the one word of the
// report's verdict, and `shown`, the ratio and interval that verdict came from
// (markdown_format.hpp vs_baseline_shown), and the page `interval_legend` when they are the stop
// rule's paired ones, so the heatmap judges nothing itself. results.json is unchanged.
json with_verdicts(const json& results, const model::document& d) {
  json data = results;
  if (!data.contains("workloads")) return data;
  json& workloads = data["workloads"];
  for (std::size_t i = 0; i < d.workloads.size() && i < workloads.size(); ++i) {
    json& cells = workloads[i]["cells"];
    for (std::size_t j = 0; j < d.workloads[i].cells.size() && j < cells.size(); ++j) {
      const model::cell& c = d.workloads[i].cells[j];
      if (!c.vs_std || !cells[j]["vs_std"].is_object()) continue;
      cells[j]["vs_std"]["verdict"] = markdown::speedup_verdict_word(*c.vs_std);
      if (!c.vs_std->speedup_p50) continue;
      cells[j]["vs_std"]["shown"] = shown_json(d, d.workloads[i], c);
      cells[j]["vs_std"]["verdict"] = markdown::vs_baseline_shown(d, d.workloads[i], c).word;
    }
  }
  const std::string legend =
      markdown::paired_interval_legend(d, markdown::vs_baseline_intervals(d));
  if (!legend.empty()) data["interval_legend"] = legend;
  return data;
}

// JSON inside <script>: "</" would end the element; "<\/" is the same JSON string.
std::string script_safe_json(const json& data) {
  std::string text = data.dump();
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  return text;
}

// The page may load nothing: scripts and styles are inline, images are data: URLs.
constexpr const char* content_policy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

// report.md's verdict marks as inline SVG: the emoji draw as empty boxes on a machine without an
// emoji font (a headless CI browser, a server), and the page may load no font.
struct verdict_mark {
  const char* emoji;
  const char* svg;
};
constexpr verdict_mark verdict_marks[] = {
    {"✅",
     "<svg class=\"mark good\" role=\"img\" aria-label=\"yes\" viewBox=\"0 0 16 16\" width=\"14\" "
     "height=\"14\"><circle cx=\"8\" cy=\"8\" r=\"7\"/><path d=\"M4.5 8.5l2.2 2.2 4.8-5\" "
     "fill=\"none\" stroke=\"#fff\" stroke-width=\"2\"/></svg>"},
    {"❌",
     "<svg class=\"mark bad\" role=\"img\" aria-label=\"no\" viewBox=\"0 0 16 16\" width=\"14\" "
     "height=\"14\"><circle cx=\"8\" cy=\"8\" r=\"7\"/><path d=\"M5 5l6 6M11 5l-6 6\" "
     "stroke=\"#fff\" stroke-width=\"2\"/></svg>"},
    {"❔",
     "<svg class=\"mark neutral\" role=\"img\" aria-label=\"open\" viewBox=\"0 0 16 16\" "
     "width=\"14\" height=\"14\"><circle cx=\"8\" cy=\"8\" r=\"7\"/><path d=\"M6 6.2a2 2 0 1 1 "
     "2.6 1.9c-.5.2-.6.6-.6 1.2M8 11.2v.6\" fill=\"none\" stroke=\"#fff\" "
     "stroke-width=\"1.6\"/></svg>"},
    {"➖",
     "<svg class=\"mark neutral\" role=\"img\" aria-label=\"not judged\" viewBox=\"0 0 16 16\" "
     "width=\"14\" height=\"14\"><circle cx=\"8\" cy=\"8\" r=\"7\"/><path d=\"M4.5 8h7\" "
     "stroke=\"#fff\" stroke-width=\"2\"/></svg>"},
    {"⚠",
     "<svg class=\"mark warn\" role=\"img\" aria-label=\"warning\" viewBox=\"0 0 16 16\" "
     "width=\"14\" height=\"14\"><path d=\"M8 1l7.5 14h-15z\"/><path d=\"M8 6v4.5M8 12v1.2\" "
     "stroke=\"#fff\" stroke-width=\"1.6\"/></svg>"},
};

std::string with_svg_marks(std::string html) {
  for (const auto& mark : verdict_marks) {
    const std::string emoji = mark.emoji;
    for (std::size_t at = html.find(emoji); at != std::string::npos;
         at = html.find(emoji, at + std::char_traits<char>::length(mark.svg))) {
      std::size_t length = emoji.size();
      if (html.compare(at + length, 3, "\xEF\xB8\x8F") == 0) length += 3;  // emoji presentation
      html.replace(at, length, mark.svg);
    }
  }
  return html;
}

}  // namespace

std::string markdown_to_html(const std::string& markdown) {
  std::string html;
  const auto append = [](const MD_CHAR* text, MD_SIZE size, void* out) {
    static_cast<std::string*>(out)->append(text, size);
  };
  if (md_html(markdown.data(), static_cast<MD_SIZE>(markdown.size()), append, &html,
              MD_DIALECT_GITHUB, 0) != 0)
    throw std::runtime_error("md4c could not render the Markdown report");
  return with_svg_marks(std::move(html));
}

std::string html_page(const std::string& title, const std::string& body_html, const json& data,
                      bool with_charts) {
  std::string page = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
      "<meta name=\"color-scheme\" content=\"light dark\">\n<title>{}</title>\n"
      "<style>\n{}</style>\n</head>\n<body data-charts-rendered=\"0\">\n{}\n",
      content_policy, escape_html(title), html_assets::report_css, body_html);
  page += "<script type=\"application/json\" id=\"alloclab-data\">" + script_safe_json(data) +
          "</script>\n";
  if (with_charts) {
    page += fmt::format("<script>/* Chart.js {} from Debian libjs-chart.js */\n",
                        html_assets::chart_js_version);
    page += html_assets::chart_js();
    page += "\n</script>\n<script>\n";
    page += html_assets::report_js;
    page += "</script>\n";
  }
  page += "</body>\n</html>\n";
  return page;
}

std::string render_html_report(const json& results, const report_options& options) {
  const model::document d = model::from_json(results);
  return render_html_report(d, render_report(d, options), results);
}

std::string render_html_report(const model::document& d, const std::string& report_md,
                               const json& results) {
  const std::string title =
      fmt::format("{}alloclab report {}", d.debug_build ? "DEBUG " : "", d.created_utc);
  // The title, run line and banners of report.md first, then the charts, then its sections.
  const std::string tables = markdown_to_html(report_md);
  std::size_t first_section = tables.find("<h2");
  if (first_section == std::string::npos) first_section = tables.size();
  std::string body = "<main>\n" + tables.substr(0, first_section);
  body +=
      "<section id=\"charts\" aria-label=\"charts\">\n<div id=\"chart-list\"></div>\n"
      "<noscript><p>The charts need JavaScript; every number is in the tables below.</p>"
      "</noscript>\n</section>\n";
  body += tables.substr(first_section) + "</main>";
  return html_page(title, body, with_verdicts(results, d), true);
}

}  // namespace alloclab::lab
