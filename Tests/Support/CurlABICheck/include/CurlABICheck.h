#ifndef CURL_ABI_CHECK_H
#define CURL_ABI_CHECK_H
// How many of CurlABI.h's declarations were checked against libcurl's header: the check is at
// compile time (this target does not build when one differs); the count is for a test to see.
int curl_abi_checked_declarations(void);
#endif
