// The reference Argon2 implementation (libargon2: Debian's libargon2-dev, Homebrew's argon2),
// for the server's verification of imported Argon2 password hashes.
#include <argon2.h>
