// CurlSupport declares the part of libcurl it uses itself (CurlABI.h), so that building needs no
// libcurl headers. Here each declaration, renamed `abi_...`, is compared with libcurl's own:
// a value or a layout that differs stops the build of the tests.
#include "CurlABICheck.h"

#include <curl/curl.h>
#include <stddef.h>

#define CURL_ABI_NAME(name) abi_##name
#include "../../../Sources/CurlSupport/CurlABI.h"

#define SAME(name) _Static_assert((long)abi_##name == (long)(name), #name " differs from libcurl's");
#define SAME_SIZE(ours, theirs) \
  _Static_assert(sizeof(ours) == sizeof(theirs), #theirs " has another size in libcurl");
#define SAME_OFFSET(ours, theirs, field)                                    \
  _Static_assert(offsetof(ours, field) == offsetof(theirs, field),          \
                 #theirs "." #field " is elsewhere in libcurl");

#define VALUES(X)                                                                                \
  X(CURLE_OK) X(CURLE_FAILED_INIT) X(CURLE_COULDNT_CONNECT) X(CURLE_WRITE_ERROR)                 \
  X(CURLE_OPERATION_TIMEDOUT) X(CURLE_ABORTED_BY_CALLBACK) X(CURLM_OK) X(CURLMSG_DONE)           \
  X(CURLSOCKTYPE_IPCXN) X(CURLOPT_WRITEDATA) X(CURLOPT_URL) X(CURLOPT_ERRORBUFFER)                \
  X(CURLOPT_WRITEFUNCTION) X(CURLOPT_HTTPHEADER) X(CURLOPT_HEADERDATA) X(CURLOPT_CUSTOMREQUEST)  \
  X(CURLOPT_NOBODY) X(CURLOPT_FOLLOWLOCATION) X(CURLOPT_MAXREDIRS) X(CURLOPT_HEADERFUNCTION)      \
  X(CURLOPT_NOSIGNAL) X(CURLOPT_ACCEPT_ENCODING) X(CURLOPT_PRIVATE)                              \
  X(CURLOPT_POSTFIELDSIZE_LARGE) X(CURLOPT_TIMEOUT_MS) X(CURLOPT_OPENSOCKETFUNCTION)             \
  X(CURLOPT_COPYPOSTFIELDS) X(CURLOPT_PROTOCOLS_STR) X(CURLOPT_REDIR_PROTOCOLS_STR)              \
  X(CURLINFO_RESPONSE_CODE) X(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T) X(CURL_GLOBAL_DEFAULT)         \
  X(CURL_ERROR_SIZE)

VALUES(SAME)

SAME_SIZE(abi_curl_off_t, curl_off_t)
SAME_SIZE(abi_curl_socket_t, curl_socket_t)
SAME_SIZE(abi_CURLcode, CURLcode)
SAME_SIZE(abi_CURLMcode, CURLMcode)
SAME_SIZE(abi_CURLoption, CURLoption)
SAME_SIZE(abi_CURLINFO, CURLINFO)
SAME_SIZE(abi_curlsocktype, curlsocktype)
SAME_SIZE(struct abi_curl_slist, struct curl_slist)
SAME_OFFSET(struct abi_curl_slist, struct curl_slist, next)
SAME_SIZE(struct abi_curl_waitfd, struct curl_waitfd)
SAME_OFFSET(struct abi_curl_waitfd, struct curl_waitfd, events)
SAME_SIZE(abi_CURLMsg, CURLMsg)
SAME_OFFSET(abi_CURLMsg, CURLMsg, easy_handle)
SAME_OFFSET(abi_CURLMsg, CURLMsg, data)
SAME_SIZE(struct abi_curl_sockaddr, struct curl_sockaddr)
SAME_OFFSET(struct abi_curl_sockaddr, struct curl_sockaddr, socktype)
SAME_OFFSET(struct abi_curl_sockaddr, struct curl_sockaddr, protocol)
SAME_OFFSET(struct abi_curl_sockaddr, struct curl_sockaddr, addr)

#define COUNT(name) +1
int curl_abi_checked_declarations(void) { return 0 VALUES(COUNT) + 18; }
