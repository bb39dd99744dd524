/* What every perfscope HTML page shares (the single-file report, report_html.c, and the several-rank-file report,
 * ranks_html.c): the frame with its Content-Security-Policy that forbids every load, the style sheet, the
 * verdict groups' colours and a share cell. */
#ifndef PS_HTML_PAGE_H
#define PS_HTML_PAGE_H

#include <stdint.h>
#include <stdio.h>

#include "analyses/report.h"
#include "html/svg_charts.h"

/* The verdict's groups in the charts, indexed by enum ps_bottleneck below PS_BN_UNKNOWN: colours that stay apart
 * for common colour-vision deficiencies (Okabe-Ito), with the labels of the tables. */
extern const struct ps_svg_series ps_html_groups[PS_BN_UNKNOWN];

/* Write the page up to and including its <h1>: doctype, the CSP (default-src 'none': no script, font or fetch),
 * the style sheet, and the <title> "perfscope report: " + `title` (escaped). The caller writes the body, then
 * ps_html_page_close. */
void ps_html_page_open(FILE *f, const char *title);
void ps_html_page_close(FILE *f);

/* A table cell with part / whole as a percentage (one decimal), "N/A" when whole is 0 or less. */
void ps_html_share_td(FILE *f, int64_t part, int64_t whole);

#endif
