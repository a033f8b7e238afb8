/* SPDX-License-Identifier: MIT */
/* elf_symbols.c - being written. */
#include "perfev.h"
