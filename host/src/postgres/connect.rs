//! Opening a PostgreSQL server: the `postgres://` URL, TLS, and the
//! connection pool.
//!
//! The URL is libpq's (`postgres://user:password@host:port/db?…`). Besides
//! what the client library reads itself, three query parameters are
//! Engram's:
//! - `sslmode`: libpq's values. `disable` never encrypts; `prefer` (the
//!   default) and `require` encrypt without checking the server's
//!   certificate, as libpq does; `verify-ca` and `verify-full` check it
//!   against the public web roots plus `sslrootcert` (both also check the
//!   host name: rustls always does). `require` with `sslrootcert` verifies,
//!   as libpq does.
//! - `sslrootcert`: a PEM file of CA certificates to trust.
//! - `pool_max`: connections kept by this process's pool (default 4).
//! - `schema`: keep Engram's tables in this schema (created if missing)
//!   instead of the user's default one, e.g. to share one database.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use postgres::tls::MakeTlsConnect;
use r2d2::ManageConnection;
use r2d2_postgres::PostgresConnectionManager;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

pub(crate) type Manager = PostgresConnectionManager<Tls>;
pub(crate) type Pool = r2d2::Pool<Manager>;
pub(crate) type Conn = r2d2::PooledConnection<Manager>;

/// The TLS connector. The client library builds one for every host, a Unix
/// socket included (named ""), even when it will not encrypt; a socket
/// never encrypts (`parse`), so it gets a placeholder name.
#[derive(Clone)]
pub(crate) struct Tls(MakeRustlsConnect);

impl<S> MakeTlsConnect<S> for Tls
where
    MakeRustlsConnect: MakeTlsConnect<S>,
{
    type Stream = <MakeRustlsConnect as MakeTlsConnect<S>>::Stream;
    type TlsConnect = <MakeRustlsConnect as MakeTlsConnect<S>>::TlsConnect;
    type Error = <MakeRustlsConnect as MakeTlsConnect<S>>::Error;

    fn make_tls_connect(&mut self, domain: &str) -> Result<Self::TlsConnect, Self::Error> {
        let name = if domain.is_empty() {
            "localhost"
        } else {
            domain
        };
        MakeTlsConnect::<S>::make_tls_connect(&mut self.0, name)
    }
}

/// How the connection is encrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Off,
    /// Encrypt if the server offers it; no certificate check.
    Prefer,
    /// Encrypt or fail; no certificate check.
    Require,
    /// Encrypt or fail, and check the certificate and host name.
    Verify,
}

/// The URL split into what the client library reads and what Engram reads.
struct Parsed {
    config: postgres::Config,
    tls: Mode,
    root_cert: Option<PathBuf>,
    pool_max: u32,
    schema: Option<String>,
}

fn parse(url: &str) -> Result<Parsed, String> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut kept: Vec<&str> = Vec::new();
    let mut tls = Mode::Prefer;
    let mut root_cert = None;
    let mut pool_max = 4u32;
    let mut schema = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "sslmode" => {
                tls = match value {
                    "disable" => Mode::Off,
                    "allow" | "prefer" => Mode::Prefer,
                    "require" => Mode::Require,
                    "verify-ca" | "verify-full" => Mode::Verify,
                    other => return Err(format!("unknown sslmode '{other}' (disable, allow, prefer, require, verify-ca or verify-full)")),
                }
            }
            "sslrootcert" => root_cert = Some(PathBuf::from(value)),
            "schema" => {
                let plain = !value.is_empty()
                    && value.len() <= 63
                    && value
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                    && !value.starts_with(|c: char| c.is_ascii_digit());
                if !plain {
                    return Err(format!(
                        "schema '{value}' is not a plain lower-case name (a-z, 0-9, _)"
                    ));
                }
                schema = Some(value.to_string());
            }
            "pool_max" => {
                pool_max = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=64).contains(n))
                    .ok_or_else(|| format!("pool_max '{value}' is not a number from 1 to 64"))?
            }
            _ => kept.push(pair),
        }
    }
    if tls == Mode::Require && root_cert.is_some() {
        tls = Mode::Verify;
    }
    let mode = match tls {
        Mode::Off => "disable",
        Mode::Prefer => "prefer",
        Mode::Require | Mode::Verify => "require",
    };
    kept.push(match mode {
        "disable" => "sslmode=disable",
        "prefer" => "sslmode=prefer",
        _ => "sslmode=require",
    });
    let rebuilt = format!("{base}?{}", kept.join("&"));
    let mut config: postgres::Config = rebuilt
        .parse()
        .map_err(|e| format!("not a PostgreSQL URL: {e}"))?;
    // libpq never uses TLS over a Unix socket; neither do we (the client
    // library would try to name the socket path as a TLS server).
    let local = !config.get_hosts().is_empty()
        && config
            .get_hosts()
            .iter()
            .all(|h| matches!(h, postgres::config::Host::Unix(_)));
    if local {
        config.ssl_mode(postgres::config::SslMode::Disable);
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    if config.get_application_name().is_none() {
        config.application_name("engram");
    }
    if let Some(name) = &schema {
        config.options(&format!("-c search_path={name}"));
    }
    Ok(Parsed {
        config,
        tls,
        root_cert,
        pool_max,
        schema,
    })
}

/// A pool of connections to the server `url` names, and the schema the
/// URL asks for. Connects once before returning, so a wrong address or
/// password fails here, by name.
pub(crate) fn pool(url: &str) -> Result<(Pool, Option<String>), String> {
    let parsed = parse(url)?;
    let schema = parsed.schema.clone();
    let tls = Tls(MakeRustlsConnect::new(client_config(
        parsed.tls,
        parsed.root_cert.as_ref(),
    )?));
    let manager = PostgresConnectionManager::new(parsed.config, tls);
    // One direct connection first: a wrong address, password or database
    // fails now with the server's own message, not after the pool's
    // retries time out.
    drop(
        manager
            .connect()
            .map_err(|e| format!("cannot connect: {}", describe(&e)))?,
    );
    r2d2::Pool::builder()
        .max_size(parsed.pool_max)
        .min_idle(Some(0))
        // A broken connection is noticed when used (the call fails once
        // and the pool drops it), instead of a round trip per checkout.
        .test_on_check_out(false)
        .connection_timeout(Duration::from_secs(30))
        .build(manager)
        .map(|pool| (pool, schema))
        .map_err(|e| format!("cannot connect: {e}"))
}

/// The server's message when there is one (`{e}` alone says only "db error").
fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => match std::error::Error::source(e) {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        },
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn client_config(tls: Mode, root_cert: Option<&PathBuf>) -> Result<ClientConfig, String> {
    let builder = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?;
    let config = if tls == Mode::Verify {
        let mut roots = RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        if let Some(path) = root_cert {
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
            for cert in certs {
                let cert = cert.map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
                roots
                    .add(cert)
                    .map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
            }
        }
        builder.with_root_certificates(roots).with_no_client_auth()
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(EncryptOnly(provider())))
            .with_no_client_auth()
    };
    Ok(config)
}

/// libpq's `prefer`/`require`: the channel is encrypted and the handshake's
/// signatures are checked, but the certificate is not (no CA configured).
#[derive(Debug)]
struct EncryptOnly(Arc<CryptoProvider>);

impl ServerCertVerifier for EncryptOnly {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engram_parameters_are_taken_out_of_the_url() {
        let p = parse("postgres://u@localhost:5433/db?sslmode=verify-full&pool_max=2").unwrap();
        assert_eq!(p.tls, Mode::Verify);
        assert_eq!(p.pool_max, 2);
        assert_eq!(p.config.get_ssl_mode(), postgres::config::SslMode::Require);
        assert_eq!(p.config.get_dbname(), Some("db"));
        let p = parse("postgres://u@localhost/db?sslmode=require&sslrootcert=/ca.pem").unwrap();
        assert_eq!(p.tls, Mode::Verify);
        assert_eq!(parse("postgres://u@h/db").unwrap().tls, Mode::Prefer);
        let p = parse("postgresql://u@h/db?sslmode=disable").unwrap();
        assert_eq!(p.config.get_ssl_mode(), postgres::config::SslMode::Disable);
        let p = parse("postgres://u@%2Fvar%2Frun%2Fpostgresql/db?sslmode=require").unwrap();
        assert_eq!(p.config.get_ssl_mode(), postgres::config::SslMode::Disable);
    }

    #[test]
    fn bad_parameters_are_named() {
        let e = parse("postgres://u@h/db?sslmode=maybe").err().unwrap();
        assert!(e.contains("'maybe'"), "{e}");
        let e = parse("postgres://u@h/db?pool_max=0").err().unwrap();
        assert!(e.contains("pool_max '0'"), "{e}");
        let e = parse("postgres://u@h/db?schema=a;drop").err().unwrap();
        assert!(e.contains("schema 'a;drop'"), "{e}");
        let p = parse("postgres://u@h/db?schema=engram_x").unwrap();
        assert_eq!(p.config.get_options(), Some("-c search_path=engram_x"));
    }
}
