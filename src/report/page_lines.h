/* page_lines.h — what the report page takes from the JSON Lines of a campaign (`fpdiv fuzz
 * --json`) and of a replay (`fpdiv replay --json`), read back as untrusted input. */
#ifndef FPD_PAGE_LINES_H
#define FPD_PAGE_LINES_H

#include <jansson.h>
#include <stddef.h>

#include "report/page.h"

struct fpd_page_lines {
    json_t *campaign, *summary; /* of the campaign */
    struct fpd_campaign_digest digest;
    size_t checks;              /* the campaign's check lines */
    struct fpd_replay_report replay;
};

/* Reads the campaign's lines from campaign_path and the replay's from replay_path (either may be
 * NULL: not given) into *l (zeroed by the caller): every line must be a JSON object (a line too
 * long, with a NUL byte or not JSON is named by file, line and column); the campaign, check,
 * summary and replay lines are checked member by member; other kinds are passed over; a file with
 * none of its kinds is refused; and the lines must add up (as many check lines as the summary
 * counts checks, as many replay lines as it counts cases, no case replayed twice). FPD_OK,
 * FPD_ERR_NOMEM, or FPD_ERR_INPUT with why. */
int fpd_page_lines_read(const char *campaign_path, const char *replay_path, struct fpd_page_lines *l, char *why,
                        size_t why_size);
void fpd_page_lines_free(struct fpd_page_lines *l);

#endif
