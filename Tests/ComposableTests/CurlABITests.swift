import CurlABICheck
import Testing

/// CurlSupport declares the part of libcurl it uses (CurlABI.h) instead of including libcurl's
/// header, so that an app builds without libcurl's -dev package. CurlABICheck compares every
/// declaration with the real header at compile time: the test target does not build when one
/// differs. This test says how many were compared, so that a check emptied by mistake shows.
@Suite struct CurlABITests {
  @Test func everyDeclarationIsComparedWithLibcurls() {
    // 33 values (codes, options, infos, constants) and 18 sizes and offsets.
    #expect(curl_abi_checked_declarations() == 51)
  }
}
