/* The frame, style and colours shared by perfscope's HTML pages (html_page.h). */
#include "html/html_escape.h"
#include "html/html_page.h"

const struct ps_svg_series ps_html_groups[PS_BN_UNKNOWN] = {
    [PS_BN_KERNEL] = { "kernel", "#009E73" },  [PS_BN_DATA] = { "data-loading", "#E69F00" },
    [PS_BN_MEMCPY] = { "memcpy", "#0072B2" },  [PS_BN_COMM] = { "communication", "#CC79A7" },
    [PS_BN_SYNC] = { "sync", "#D55E00" },      [PS_BN_HOST] = { "host", "#999999" },
    [PS_BN_WAITING] = { "waiting", "#F0E442" },
};

static const char style[] =
    "body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fff}"
    "main{max-width:1000px;margin:0 auto;padding:16px}h1{font-size:1.5em;margin:.2em 0}"
    "h2{font-size:1.2em;border-bottom:1px solid #ddd;padding-bottom:2px;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:.5em 0;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;"
    "vertical-align:top}th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "td.name{word-break:break-all;font-family:ui-monospace,monospace;font-size:12px}"
    ".alert{border-left:4px solid #c00;background:#fff0f0;padding:6px 10px;margin:6px 0}"
    ".warn{border-left:4px solid #b80;background:#fff8e6;padding:6px 10px;margin:6px 0}"
    ".verdict{font-size:1.15em;background:#f4f8ff;border:1px solid #bcd;padding:8px 12px}"
    "svg.chart{width:100%;height:auto;font-size:12px}svg .axis line{stroke:#e3e3e3}svg text{fill:#333}"
    "figure{margin:0}figcaption{color:#555;font-size:13px}.src{color:#555;word-break:break-all}"
    "details{margin:.4em 0}summary{cursor:pointer;color:#035}.alert,.warn,.verdict{overflow-wrap:anywhere}";

void ps_html_page_open(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "img-src data:\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>perfscope report: ", f);
    ps_html_text(f, title, 0);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>perfscope report</h1>\n", style);
}

void ps_html_page_close(FILE *f)
{
    fputs("</main>\n</body>\n</html>\n", f);
}

void ps_html_share_td(FILE *f, int64_t part, int64_t whole)
{
    whole > 0 ? fprintf(f, "<td class=\"n\">%.1f</td>", 100.0 * (double)part / (double)whole)
              : fputs("<td class=\"n\">N/A</td>", f);
}
