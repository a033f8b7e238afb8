/* Shows a name that may hold control bytes or invalid UTF-8 safely. */
#include <perfev.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "evil\x1b[2J\nname\xff";
	char json[256];

	if (!pev_text_is_clean(name))
		printf("the name needs escaping\n");
	pev_text_fputs(name, stdout); /* evil\x1b[2J\x0aname\xff */
	putchar('\n');
	if (pev_text_utf8(json, sizeof(json), name) < sizeof(json))
		printf("%zu bytes of valid UTF-8 for a JSON writer\n", sizeof(json));
	return 0;
}
