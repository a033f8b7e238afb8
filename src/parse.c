/* SPDX-License-Identifier: MIT */
/* parse.c - being written. */
#include "perfev.h"
