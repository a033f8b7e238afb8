/* Shows a name that may hold control bytes or invalid UTF-8 safely. */
#include <perfev.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "evil\x1b[2J\nname\xff";
	char shown[256], json[256];

	pev_text_escape(shown, sizeof(shown), name, 0);
	pev_text_utf8(json, sizeof(json), name);
	printf("%s is %sclean\n", shown, pev_text_is_clean(name) ? "" : "not ");
	printf("as UTF-8: %zu bytes\n", sizeof(json) > 0 ? (size_t)snprintf(NULL, 0, "%s", json) : 0);
	return 0;
}
