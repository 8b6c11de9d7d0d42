/* spral.h — umbrella header for the SPRAL-compatible C interface of ssids. Only SSIDS is provided
 * (SPRAL's other packages are not); SPRAL_VERSION names the SPRAL release whose interface is mirrored. */
#ifndef SPRAL_H
#define SPRAL_H

#define SPRAL_VERSION "2025.09.0"

#include "spral_ssids.h"

#endif /* SPRAL_H */
