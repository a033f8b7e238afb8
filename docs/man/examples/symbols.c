/* Resolves an address of this process to its function, file and DSO. */
#include <perfev.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	struct pev_symbols_opts so = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols *s;
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	struct pev_error err;
	char text[512];

	if (pev_symbols_new(&so, &s, &err) < 0 ||
	    pev_symbols_read_process(s, (int32_t)getpid(), &err) < 0) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	if (pev_symbols_resolve(s, (int32_t)getpid(), (uint64_t)(uintptr_t)&main, &sym) >= 0 &&
	    pev_symbol_format(&sym, text, sizeof(text)) >= 0)
		printf("%s\n", text);
	pev_symbols_free(s);
	return 0;
}
