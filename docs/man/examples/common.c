/* Prints the version of the perfev headers a program was built with. */
#include <perfev.h>
#include <stdio.h>

int main(void)
{
	printf("perfev %d.%d.%d\n", PEV_VERSION_MAJOR, PEV_VERSION_MINOR, PEV_VERSION_PATCH);
	return 0;
}
