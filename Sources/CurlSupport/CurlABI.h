#ifndef CURL_ABI_H
#define CURL_ABI_H

// The part of libcurl's C interface Transfers.c uses, declared here so that building needs no
// libcurl headers: an app that makes no HTTP calls builds without libcurl's -dev package, and
// the library is opened at the first request (Transfers.c, dlopen). Every value below is part
// of libcurl's stable ABI (the option and info numbers, the codes, the layout of the structs it
// hands out), unchanged since the versions that introduced them; CurlABICheck (a test target
// built against the real <curl/curl.h>) asserts each one.
//
// Each name goes through CURL_ABI_NAME, which the check defines to give them a prefix of their
// own beside libcurl's.

#include <stdint.h>
#include <sys/socket.h>

#ifndef CURL_ABI_NAME
#define CURL_ABI_NAME(name) name
#endif

typedef void CURL_ABI_NAME(CURL);
typedef void CURL_ABI_NAME(CURLM);
typedef int64_t CURL_ABI_NAME(curl_off_t);
typedef int CURL_ABI_NAME(curl_socket_t);

typedef enum {
  CURL_ABI_NAME(CURLE_OK) = 0,
  CURL_ABI_NAME(CURLE_FAILED_INIT) = 2,
  CURL_ABI_NAME(CURLE_COULDNT_CONNECT) = 7,
  CURL_ABI_NAME(CURLE_WRITE_ERROR) = 23,
  CURL_ABI_NAME(CURLE_OPERATION_TIMEDOUT) = 28,
  CURL_ABI_NAME(CURLE_ABORTED_BY_CALLBACK) = 42,
} CURL_ABI_NAME(CURLcode);

typedef enum {
  CURL_ABI_NAME(CURLM_OK) = 0,
} CURL_ABI_NAME(CURLMcode);

typedef enum {
  CURL_ABI_NAME(CURLMSG_DONE) = 1,
} CURL_ABI_NAME(CURLMSG);

typedef enum {
  CURL_ABI_NAME(CURLSOCKTYPE_IPCXN) = 0,
} CURL_ABI_NAME(curlsocktype);

// An option's number is its type's base (long 0, pointer 10000, function 20000, curl_off_t
// 30000) plus its index.
typedef enum {
  CURL_ABI_NAME(CURLOPT_WRITEDATA) = 10001,
  CURL_ABI_NAME(CURLOPT_URL) = 10002,
  CURL_ABI_NAME(CURLOPT_ERRORBUFFER) = 10010,
  CURL_ABI_NAME(CURLOPT_WRITEFUNCTION) = 20011,
  CURL_ABI_NAME(CURLOPT_HTTPHEADER) = 10023,
  CURL_ABI_NAME(CURLOPT_HEADERDATA) = 10029,
  CURL_ABI_NAME(CURLOPT_CUSTOMREQUEST) = 10036,
  CURL_ABI_NAME(CURLOPT_NOBODY) = 44,
  CURL_ABI_NAME(CURLOPT_FOLLOWLOCATION) = 52,
  CURL_ABI_NAME(CURLOPT_MAXREDIRS) = 68,
  CURL_ABI_NAME(CURLOPT_HEADERFUNCTION) = 20079,
  CURL_ABI_NAME(CURLOPT_NOSIGNAL) = 99,
  CURL_ABI_NAME(CURLOPT_ACCEPT_ENCODING) = 10102,
  CURL_ABI_NAME(CURLOPT_PRIVATE) = 10103,
  CURL_ABI_NAME(CURLOPT_POSTFIELDSIZE_LARGE) = 30120,
  CURL_ABI_NAME(CURLOPT_TIMEOUT_MS) = 155,
  CURL_ABI_NAME(CURLOPT_OPENSOCKETFUNCTION) = 20163,
  CURL_ABI_NAME(CURLOPT_COPYPOSTFIELDS) = 10165,
  CURL_ABI_NAME(CURLOPT_PROTOCOLS_STR) = 10318,
  CURL_ABI_NAME(CURLOPT_REDIR_PROTOCOLS_STR) = 10319,
} CURL_ABI_NAME(CURLoption);

// An info's number is its type's base (long 0x200000, curl_off_t 0x600000) plus its index.
typedef enum {
  CURL_ABI_NAME(CURLINFO_EFFECTIVE_URL) = 0x100000 + 1,
  CURL_ABI_NAME(CURLINFO_RESPONSE_CODE) = 0x200000 + 2,
  CURL_ABI_NAME(CURLINFO_REDIRECT_COUNT) = 0x200000 + 20,
  CURL_ABI_NAME(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T) = 0x600000 + 15,
} CURL_ABI_NAME(CURLINFO);

enum {
  CURL_ABI_NAME(CURL_GLOBAL_DEFAULT) = 3,  // CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32
  CURL_ABI_NAME(CURL_ERROR_SIZE) = 256,
};

struct CURL_ABI_NAME(curl_slist) {
  char *data;
  struct CURL_ABI_NAME(curl_slist) *next;
};

struct CURL_ABI_NAME(curl_waitfd) {
  CURL_ABI_NAME(curl_socket_t) fd;
  short events;
  short revents;
};

typedef struct {
  CURL_ABI_NAME(CURLMSG) msg;
  CURL_ABI_NAME(CURL) *easy_handle;
  union {
    void *whatever;
    CURL_ABI_NAME(CURLcode) result;
  } data;
} CURL_ABI_NAME(CURLMsg);

struct CURL_ABI_NAME(curl_sockaddr) {
  int family;
  int socktype;
  int protocol;
  unsigned int addrlen;
  struct sockaddr addr;
};

#endif
