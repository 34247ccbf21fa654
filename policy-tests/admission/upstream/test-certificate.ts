/**
 * A self-signed certificate (P-256, CN=test, valid for a century), made once with openssl, for the tables that make
 * a fresh one each run (cert-manager's unitcrypto.MustCreateCryptoBundle): the validation they test only asks that a
 * bundle hold a certificate Go parses.
 */
export const TEST_CERTIFICATE_PEM = `-----BEGIN CERTIFICATE-----
MIIBdTCCARugAwIBAgIUFkQxxSOvdOmj1c9Y9O+SBZgKvBgwCgYIKoZIzj0EAwIw
DzENMAsGA1UEAwwEdGVzdDAgFw0yNjEyMDIxMTEyMzlaGA8yMTI2MTEwODExMTIz
OVowDzENMAsGA1UEAwwEdGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABOba
UuwetlI3SX3QoUtXtHwCF7TsUQcMt+Mlk/YbfcvGLZ2Wl09BGN37pYnSk8Mp1G85
RwuaiK+W6FSsnxBUGFmjUzBRMB0GA1UdDgQWBBTuFDqUHLbcH0HiZU08MK+pNeDv
ojAfBgNVHSMEGDAWgBTuFDqUHLbcH0HiZU08MK+pNeDvojAPBgNVHRMBAf8EBTAD
AQH/MAoGCCqGSM49BAMCA0gAMEUCIQCz+vUMKR+IzkRMs1Tv+NgpQMwC70XCVyQu
TRFCagWajQIgSjyMhpHu3uC5S9cZff21g4gN4Qzq/8OGi0Wx1uEANFs=
-----END CERTIFICATE-----
`;
