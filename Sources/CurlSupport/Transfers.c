// HTTP transfers for the live HTTP client: see CurlSupport.h.
//
// One thread per client owns the multi handle; nothing else touches it. Other threads hand it
// new transfers and cancellations through `lock` and wake it with curl_multi_wakeup.

#include "CurlSupport.h"

#include "CurlABI.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

enum { MAXIMUM_HEADER_BYTES = 1 << 20, FIRST_BODY_CAPACITY = 16 << 10 };

typedef struct transfer {
  uint64_t id;
  CURL *easy;
  struct curl_slist *headers;
  cs_completion completion;
  void *context;
  cs_response *response;
  size_t maximum_body;
  size_t body_capacity;
  int checked_length;
  int over_limit;
  const char *failure;  // a reason the callbacks stopped the transfer for, besides the limit
  int headers_ended;     // the blank line after the last response's headers came
  int over_total;        // stopped: the bodies in flight would have held more than the client's
                         // `maximum_total` together
  struct cs_client *client;
  int interim;           // the last status line was 1xx: a final response is still to come
  int within_head;       // a line came since a response began or the last blank line: a line
                         // starting "HTTP/" now is no status line
  struct transfer *next;
} transfer;

struct cs_client {
  CURLM *multi;
  pthread_t thread;
  pthread_mutex_t lock;
  size_t maximum_body;
  size_t maximum_total;
  size_t held;  // the thread's own: what the bodies of the transfers still running hold
  uint64_t next_id;
  int stopping;                  // under lock
  transfer *starting, *starting_tail;  // under lock: handed to the thread, not yet added
  uint64_t *cancels;             // under lock
  size_t cancel_count, cancel_capacity;
  transfer *active;              // the thread's own
};

// libcurl, opened when the first client is made rather than when the process starts: it and
// the ~30 libraries it needs (TLS, Kerberos, LDAP...) were most of the command's start-up, and
// most runs of a feature make no request.
static struct {
  CURLcode (*global_init)(long);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  void (*easy_cleanup)(CURL *);
  const char *(*easy_strerror)(CURLcode);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
  CURLM *(*multi_init)(void);
  CURLMcode (*multi_add_handle)(CURLM *, CURL *);
  CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
  CURLMcode (*multi_perform)(CURLM *, int *);
  CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
  CURLMsg *(*multi_info_read)(CURLM *, int *);
  CURLMcode (*multi_wakeup)(CURLM *);
  CURLMcode (*multi_cleanup)(CURLM *);
} lib;

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static int global_ready = 0;

// Each function by name; 0 when the library or one of them is missing.
static int load_library(void) {
  void *handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!handle) handle = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
  if (!handle) return 0;
#define LOAD(field, name)                                   \
  do {                                                      \
    *(void **)(&lib.field) = dlsym(handle, name);           \
    if (!lib.field) return 0;                               \
  } while (0)
  LOAD(global_init, "curl_global_init");
  LOAD(easy_init, "curl_easy_init");
  LOAD(easy_setopt, "curl_easy_setopt");
  LOAD(easy_getinfo, "curl_easy_getinfo");
  LOAD(easy_cleanup, "curl_easy_cleanup");
  LOAD(easy_strerror, "curl_easy_strerror");
  LOAD(slist_append, "curl_slist_append");
  LOAD(slist_free_all, "curl_slist_free_all");
  LOAD(multi_init, "curl_multi_init");
  LOAD(multi_add_handle, "curl_multi_add_handle");
  LOAD(multi_remove_handle, "curl_multi_remove_handle");
  LOAD(multi_perform, "curl_multi_perform");
  LOAD(multi_poll, "curl_multi_poll");
  LOAD(multi_info_read, "curl_multi_info_read");
  LOAD(multi_wakeup, "curl_multi_wakeup");
  LOAD(multi_cleanup, "curl_multi_cleanup");
#undef LOAD
  return 1;
}

static void global_init(void) {
  global_ready = load_library() && lib.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

// MARK: Callbacks, on the client's thread

// Sockets close-on-exec from the start: libcurl 7.88 opens them without it, so a process the
// host spawned meanwhile inherited the connection, and a cancelled request stayed open (the
// server saw no hang-up) for as long as that process lived.
static curl_socket_t open_socket(void *context, curlsocktype purpose,
                                 struct curl_sockaddr *address) {
  (void)context;
  (void)purpose;
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

static size_t on_body(char *data, size_t size, size_t count, void *user) {
  transfer *t = user;
  cs_response *r = t->response;
  size_t n = size * count;
  if (!t->checked_length) {
    t->checked_length = 1;
    curl_off_t declared = -1;
    if (lib.easy_getinfo(t->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared) == CURLE_OK) {
      r->declared_length = declared;
      if (declared > 0 && (uint64_t)declared > t->maximum_body) {
        t->over_limit = 1;
        return 0;  // stops the transfer (CURLE_WRITE_ERROR)
      }
    }
  }
  if (n > t->maximum_body - r->body_length) {
    t->over_limit = 1;
    r->received = r->body_length + n;
    return 0;
  }
  if (r->body_length + n > t->body_capacity) {
    size_t capacity = t->body_capacity ? t->body_capacity * 2 : FIRST_BODY_CAPACITY;
    if (capacity < r->body_length + n) capacity = r->body_length + n;
    if (capacity > t->maximum_body) capacity = t->maximum_body;
    // Every body still arriving counts against one budget: 150 requests at once, each under
    // its own limit, held 1.5 GB.
    cs_client *client = t->client;
    if (capacity - t->body_capacity > client->maximum_total - client->held) {
      t->over_total = 1;
      r->received = r->body_length + n;
      return 0;
    }
    unsigned char *grown = realloc(r->body, capacity);
    if (!grown) {
      t->failure = "out of memory for the body";
      return 0;
    }
    r->body = grown;
    client->held += capacity - t->body_capacity;
    t->body_capacity = capacity;
  }
  memcpy(r->body + r->body_length, data, n);
  r->body_length += n;
  r->received = r->body_length;
  return n;
}

static size_t on_header(char *data, size_t size, size_t count, void *user) {
  transfer *t = user;
  cs_response *r = t->response;
  size_t n = size * count;
  // A new response (after a redirect, a 100) begins with its status line: the first line, or
  // the first after a blank line. A line starting so inside a head is one of its lines (a
  // server's "HTTP/1.1 ..." among the headers erased those before it).
  if (!t->within_head && n >= 5 && memcmp(data, "HTTP/", 5) == 0) {
    r->headers_length = 0;
    t->headers_ended = 0;
    t->within_head = 1;
    const char *space = memchr(data, ' ', n);
    t->interim = space && space + 1 < data + n && space[1] == '1';
    return n;
  }
  // The blank line that ends the headers ("\r\n", or "\n" alone, which curl takes too).
  if ((n == 2 && data[0] == '\r' && data[1] == '\n') || (n == 1 && data[0] == '\n')) {
    t->headers_ended = 1;
    t->within_head = 0;
    return n;
  }
  t->within_head = 1;
  // After it: a chunked body's trailers, which are not the response's headers (a trailer
  // repeating Content-Type made the body's type two).
  if (t->headers_ended) return n;
  if (r->headers_length + n > MAXIMUM_HEADER_BYTES) {
    t->failure = "the response's headers are over 1 MB";
    return 0;
  }
  char *grown = realloc(r->headers, r->headers_length + n);
  if (!grown) {
    t->failure = "out of memory for the headers";
    return 0;
  }
  r->headers = grown;
  memcpy(r->headers + r->headers_length, data, n);
  r->headers_length += n;
  return n;
}

// MARK: The client's thread

static void release(transfer *t) {
  if (t->easy) lib.easy_cleanup(t->easy);
  lib.slist_free_all(t->headers);
  free(t);
}

// Ends `t` (already out of the active list): reports it and frees it.
static void finish(cs_client *client, transfer *t, cs_outcome outcome, CURLcode code) {
  lib.multi_remove_handle(client->multi, t->easy);
  cs_response *r = t->response;
  r->curl_code = (int)code;
  if (outcome == CS_COMPLETED && t->over_limit) outcome = CS_OVER_LIMIT;
  if (outcome == CS_COMPLETED && t->over_total) {
    outcome = CS_FAILED;
    snprintf(r->error, sizeof r->error,
             "the bodies of the responses still arriving would hold more than %zu bytes "
             "together, the client's limit (this one was stopped after %zu bytes)",
             client->maximum_total, r->received);
  }
  if (outcome == CS_COMPLETED && code == CURLE_OPERATION_TIMEDOUT) outcome = CS_TIMED_OUT;
  if (outcome == CS_COMPLETED && code == CURLE_COULDNT_CONNECT) outcome = CS_REFUSED;
  if (outcome == CS_COMPLETED && code != CURLE_OK) outcome = CS_FAILED;
  // A connection closed after an interim response (100 Continue), with no final one: curl
  // says "HTTP/0.9 when not allowed", or takes the 100 for the answer.
  if ((outcome == CS_COMPLETED || outcome == CS_FAILED) && t->interim && !t->failure) {
    outcome = CS_FAILED;
    t->failure = "the connection closed after an interim response (1xx), before the final one";
  }
  // A connection closed in the headers, which curl takes as a whole response with no body.
  if (outcome == CS_COMPLETED && !t->headers_ended) {
    outcome = CS_FAILED;
    if (!t->failure) t->failure = "the connection closed before the response's headers ended";
  }
  client->held -= t->body_capacity;  // handed over with the response, or freed below
  if (outcome == CS_FAILED && t->failure) {
    snprintf(r->error, sizeof r->error, "%s", t->failure);
  } else if (outcome == CS_FAILED && r->error[0] == 0) {
    snprintf(r->error, sizeof r->error, "%s", lib.easy_strerror(code));
  }
  // A failure after a redirect happened at another URL than the one asked for: say which.
  long redirects = 0;
  char *last_url = NULL;
  if (outcome != CS_COMPLETED && outcome != CS_CANCELLED &&
      lib.easy_getinfo(t->easy, CURLINFO_REDIRECT_COUNT, &redirects) == CURLE_OK &&
      redirects > 0 &&
      lib.easy_getinfo(t->easy, CURLINFO_EFFECTIVE_URL, &last_url) == CURLE_OK && last_url) {
    r->redirected_to = strdup(last_url);
  }
  long status = 0;
  lib.easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
  r->status = status;
  r->outcome = outcome;
  if (outcome != CS_COMPLETED) {  // nobody reads a partial body: give its memory back now
    free(r->body);
    r->body = NULL;
    r->body_length = 0;
  }
  cs_completion completion = t->completion;
  void *context = t->context;
  release(t);
  completion(context, r);
}

static transfer *take_active(cs_client *client, uint64_t id, CURL *easy) {
  for (transfer **link = &client->active; *link; link = &(*link)->next) {
    transfer *t = *link;
    if ((id && t->id == id) || (easy && t->easy == easy)) {
      *link = t->next;
      return t;
    }
  }
  return NULL;
}

static void *run(void *argument) {
  cs_client *client = argument;
  for (;;) {
    pthread_mutex_lock(&client->lock);
    transfer *starting = client->starting;
    client->starting = client->starting_tail = NULL;
    uint64_t *cancels = client->cancels;
    size_t cancel_count = client->cancel_count;
    client->cancels = NULL;
    client->cancel_count = client->cancel_capacity = 0;
    int stopping = client->stopping;
    pthread_mutex_unlock(&client->lock);

    while (starting) {
      transfer *t = starting;
      starting = t->next;
      t->next = client->active;
      client->active = t;
      if (lib.multi_add_handle(client->multi, t->easy) != CURLM_OK) {
        take_active(client, t->id, NULL);
        finish(client, t, CS_FAILED, CURLE_FAILED_INIT);
      }
    }
    for (size_t i = 0; i < cancel_count; i++) {
      transfer *t = take_active(client, cancels[i], NULL);
      if (t) finish(client, t, CS_CANCELLED, CURLE_ABORTED_BY_CALLBACK);
    }
    free(cancels);
    if (stopping) {
      while (client->active) {
        transfer *t = client->active;
        client->active = t->next;
        finish(client, t, CS_CANCELLED, CURLE_ABORTED_BY_CALLBACK);
      }
      return NULL;
    }

    int running = 0;
    lib.multi_perform(client->multi, &running);
    CURLMsg *message;
    int left = 0;
    while ((message = lib.multi_info_read(client->multi, &left))) {
      if (message->msg != CURLMSG_DONE) continue;
      CURLcode code = message->data.result;
      transfer *t = take_active(client, 0, message->easy_handle);
      if (t) finish(client, t, CS_COMPLETED, code);
    }
    lib.multi_poll(client->multi, NULL, 0, 1000, NULL);
  }
}

// MARK: The API

cs_client *cs_client_new(size_t maximum_body, size_t maximum_total) {
  pthread_once(&global_once, global_init);
  if (!global_ready) return NULL;
  cs_client *client = calloc(1, sizeof *client);
  if (!client) return NULL;
  client->multi = lib.multi_init();
  client->maximum_body = maximum_body;
  client->maximum_total = maximum_total;
  client->next_id = 1;
  pthread_mutex_init(&client->lock, NULL);
  if (!client->multi || pthread_create(&client->thread, NULL, run, client) != 0) {
    if (client->multi) lib.multi_cleanup(client->multi);
    pthread_mutex_destroy(&client->lock);
    free(client);
    return NULL;
  }
  return client;
}

void cs_client_free(cs_client *client) {
  if (!client) return;
  pthread_mutex_lock(&client->lock);
  client->stopping = 1;
  pthread_mutex_unlock(&client->lock);
  lib.multi_wakeup(client->multi);
  pthread_join(client->thread, NULL);
  lib.multi_cleanup(client->multi);
  pthread_mutex_destroy(&client->lock);
  free(client);
}

static int is(const char *method, const char *name) { return strcmp(method, name) == 0; }

uint64_t cs_start(cs_client *client, const cs_request *request, cs_completion completion,
                  void *context) {
  transfer *t = calloc(1, sizeof *t);
  cs_response *r = calloc(1, sizeof *r);
  CURL *easy = lib.easy_init();
  if (!t || !r || !easy) {
    free(t);
    free(r);
    if (easy) lib.easy_cleanup(easy);
    return 0;
  }
  t->easy = easy;
  t->response = r;
  t->completion = completion;
  t->context = context;
  t->maximum_body = client->maximum_body;
  t->client = client;
  r->declared_length = -1;

  int ok = lib.easy_setopt(easy, CURLOPT_URL, request->url) == CURLE_OK;
  lib.easy_setopt(easy, CURLOPT_PRIVATE, t);
  lib.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_socket);
  lib.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  lib.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  // Redirects are followed for the requests libcurl follows as a browser does: a GET, a HEAD,
  // a POST (sent again for 307 and 308, a GET without its body for 301, 302 and 303). Any other
  // method is set as a custom request, which libcurl sends again to the new place whatever the
  // status, and without its body: a PUT answered 302 became an empty PUT there. Those get the
  // redirect as their answer (its status and Location), for the feature to decide.
  const char *method = request->method;
  int follows = (is(method, "GET") && !request->body) || is(method, "HEAD") || is(method, "POST");
  lib.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, follows ? 1L : 0L);
  lib.easy_setopt(easy, CURLOPT_MAXREDIRS, 10L);
  lib.easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // decoded bodies count against the limit
  lib.easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  lib.easy_setopt(easy, CURLOPT_WRITEDATA, t);
  lib.easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
  lib.easy_setopt(easy, CURLOPT_HEADERDATA, t);
  lib.easy_setopt(easy, CURLOPT_ERRORBUFFER, r->error);
  if (request->timeout_ms > 0) lib.easy_setopt(easy, CURLOPT_TIMEOUT_MS, request->timeout_ms);

  int sends_body = request->body || is(method, "POST") || is(method, "PUT") || is(method, "PATCH");
  if (is(method, "HEAD")) {
    lib.easy_setopt(easy, CURLOPT_NOBODY, 1L);
  } else if (sends_body) {
    lib.easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_length);
    // Copied: the caller's bytes need not outlive this call.
    ok = ok && lib.easy_setopt(easy, CURLOPT_COPYPOSTFIELDS,
                                request->body ? (const char *)request->body : "") == CURLE_OK;
    if (!is(method, "POST")) lib.easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
  } else if (!is(method, "GET")) {
    lib.easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
  }
  struct curl_slist *headers = lib.slist_append(NULL, "Expect:");  // no 100-continue wait
  for (size_t i = 0; headers && i < request->header_count; i++) {
    struct curl_slist *more = lib.slist_append(headers, request->headers[i]);
    if (!more) {
      lib.slist_free_all(headers);
      headers = NULL;
    } else {
      headers = more;
    }
  }
  t->headers = headers;
  ok = ok && headers && lib.easy_setopt(easy, CURLOPT_HTTPHEADER, headers) == CURLE_OK;
  if (!ok) {
    release(t);
    free(r);
    return 0;
  }

  pthread_mutex_lock(&client->lock);
  t->id = client->next_id++;
  uint64_t id = t->id;
  if (client->starting_tail) {
    client->starting_tail->next = t;
  } else {
    client->starting = t;
  }
  client->starting_tail = t;
  pthread_mutex_unlock(&client->lock);
  lib.multi_wakeup(client->multi);
  return id;
}

void cs_cancel(cs_client *client, uint64_t id) {
  pthread_mutex_lock(&client->lock);
  if (client->cancel_count == client->cancel_capacity) {
    size_t capacity = client->cancel_capacity ? client->cancel_capacity * 2 : 8;
    uint64_t *grown = realloc(client->cancels, capacity * sizeof *grown);
    if (!grown) {  // cannot record it: the transfer still ends, by its timeout or its server
      pthread_mutex_unlock(&client->lock);
      return;
    }
    client->cancels = grown;
    client->cancel_capacity = capacity;
  }
  client->cancels[client->cancel_count++] = id;
  pthread_mutex_unlock(&client->lock);
  lib.multi_wakeup(client->multi);
}

void cs_response_free(cs_response *response) {
  if (!response) return;
  free(response->body);
  free(response->headers);
  free(response->redirected_to);
  free(response);
}
