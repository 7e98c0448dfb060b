// SPDX-License-Identifier: GPL-2.0
/* The encoder driver (being written). */
#include <errno.h>
#include <stdio.h>

#include "btf/encode.h"

int btf_enc__run(const struct btf_enc_opts *opts)
{
	snprintf(opts->errbuf, opts->errlen, "%s: encoder not built yet", opts->path);
	return -ENOSYS;
}
