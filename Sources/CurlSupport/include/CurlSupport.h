#ifndef CURL_SUPPORT_H
#define CURL_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

// HTTP transfers on libcurl's multi interface, run by one thread per client.
//
// Why C: libcurl's options are set through a variadic function Swift cannot call, and its
// callbacks run on the client's thread in the middle of a transfer. The body is taken as it
// arrives and the transfer stopped the moment it passes the client's limit (at once when the
// server declares a length over it), so memory is bounded by the limit, whatever the server
// sends. Cancelling wakes the thread, which removes the transfer and closes its connection.

typedef struct cs_client cs_client;

typedef struct cs_request {
  const char *method;
  const char *url;
  const char *const *headers;  // "Name: value" lines
  size_t header_count;
  const unsigned char *body;  // NULL: no body
  size_t body_length;
  long timeout_ms;  // 0: none
} cs_request;

typedef enum cs_outcome {
  CS_COMPLETED = 0,  // a response, any status
  CS_FAILED,         // curl_code and error say why
  CS_OVER_LIMIT,     // declared_length (or -1) and received say how far it got
  CS_CANCELLED,
  CS_TIMED_OUT,      // the request's timeout passed
  CS_REFUSED,        // nothing accepted the connection
} cs_outcome;

typedef struct cs_response {
  cs_outcome outcome;
  int curl_code;
  char error[256];
  long status;
  unsigned char *body;
  size_t body_length;
  char *headers;  // the final response's header lines, "Name: value\r\n" each
  size_t headers_length;
  int64_t declared_length;  // -1 when the server did not say
  size_t received;
  char *redirected_to;  // for a transfer that did not complete after a redirect: where it led
} cs_response;

// Called once per transfer, on the client's thread. The response is the callee's: free it with
// cs_response_free.
typedef void (*cs_completion)(void *context, cs_response *response);

// A client whose bodies may be at most `maximum_body` bytes each, and `maximum_total` all
// together while they arrive (a transfer whose body would pass it fails). NULL when libcurl
// cannot start.
cs_client *cs_client_new(size_t maximum_body, size_t maximum_total);
// Stops the client's thread; transfers still running complete as cancelled first.
void cs_client_free(cs_client *client);

// Starts a transfer (everything in `request` is copied) and returns its id, never 0; 0 when it
// could not be set up (`completion` is then not called).
uint64_t cs_start(cs_client *client, const cs_request *request, cs_completion completion,
                  void *context);
// Cancels the transfer `id`: it completes as cancelled, unless it completed already.
void cs_cancel(cs_client *client, uint64_t id);

void cs_response_free(cs_response *response);

#endif
