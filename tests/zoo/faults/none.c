/* none.c — the control: the real library, forwarded, with no fault. A campaign on it must find
 * nothing that a campaign on the real library does not. */
#include "../zoo.h"
