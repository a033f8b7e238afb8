/* SPDX-License-Identifier: MIT */
/* suggest.c - being written. */
#include "perfev.h"
