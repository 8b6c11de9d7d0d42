/* spral.h — umbrella header for the SPRAL-compatible C interface of ssids. Only SSIDS is provided
 * (SPRAL's other packages are not); SPRAL_VERSION names the SPRAL release whose interface is mirrored
 * (SPRAL 2025.09.18), and get_spral_version() returns that string, as SPRAL's does. */
#ifndef SPRAL_H
#define SPRAL_H

#define SPRAL_VERSION "2025.09.18"

#include "spral_ssids.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies SPRAL_VERSION (at most 10 characters and a terminating NUL) into version. */
void get_spral_version(char version[11]);

#ifdef __cplusplus
}
#endif

#endif /* SPRAL_H */
