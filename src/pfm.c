/* SPDX-License-Identifier: MIT */
/* pfm.c - being written. */
#include "perfev.h"
