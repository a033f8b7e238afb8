/* SPDX-License-Identifier: MIT */
/* tracepoint.c - being written. */
#include "perfev.h"
