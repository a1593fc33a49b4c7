/* SPDX-License-Identifier: MIT */
int parse_numbers(const char *s, int *out, int max);
int stat_sum(const int *v, int n);
int stat_max(const int *v, int n);
