//! What a route answers, as a value: the metrics body with its format, or a page. The front
//! turns it into a response once (gzip, Content-Type, `Vary`), and nothing reopens it.
//!
//! Owns [`Reply`] and its conversion. **Not here:** which route answers what
//! ([`super::routes`]), auth and the configured headers ([`super::front`]).
//!
//! Cost: per request; gzip (fastest level) of a metrics body when the client accepts it.

use std::io::Write as _;

use flate2::write::GzEncoder;
use flate2::Compression;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{HeaderName, HeaderValue, CONTENT_ENCODING, CONTENT_TYPE, VARY};
use hyper::{Response, StatusCode};

use crate::exposition::Format;

/// A response body.
pub type Body = Full<Bytes>;

/// What a route answers.
#[derive(Debug)]
pub enum Reply {
    /// A whole exposition (families, connection self-metrics, trailer), 200.
    Metrics { body: Vec<u8>, format: Format },
    /// An HTML page, 200, with the headers that keep it to itself (its policy: what it may
    /// load, framing, sniffing, referrer), set before the configured ones.
    Html {
        body: Bytes,
        headers: &'static [(HeaderName, HeaderValue)],
    },
    /// Anything else: a status, a content type and a body.
    Page {
        status: StatusCode,
        content_type: &'static str,
        body: Bytes,
    },
}

impl Reply {
    /// A plain-text page of one sentence.
    pub fn text(status: StatusCode, body: &'static str) -> Reply {
        Reply::Page {
            status,
            content_type: "text/plain; charset=utf-8",
            body: Bytes::from_static(body.as_bytes()),
        }
    }

    /// A plain-text page of one sentence made at request time.
    pub fn sentence(status: StatusCode, sentence: &str) -> Reply {
        Reply::Page {
            status,
            content_type: "text/plain; charset=utf-8",
            body: Bytes::from(format!("{sentence}\n")),
        }
    }

    /// A 400 naming what is wrong with the request.
    pub fn bad_request(sentence: String) -> Reply {
        Reply::sentence(StatusCode::BAD_REQUEST, &sentence)
    }

    /// A 200 page.
    pub fn ok(content_type: &'static str, body: impl Into<Bytes>) -> Reply {
        Reply::Page {
            status: StatusCode::OK,
            content_type,
            body: body.into(),
        }
    }

    /// The response: a metrics body gzipped when `gzip` (the client accepts it), with
    /// `Vary: Accept-Encoding`; a page as it is.
    pub fn into_response(self, gzip: bool) -> Response<Body> {
        match self {
            Reply::Metrics { body, format } => {
                let mut response = Response::new(Full::new(Bytes::from(if gzip {
                    compress(&body)
                } else {
                    body
                })));
                let headers = response.headers_mut();
                headers.insert(
                    CONTENT_TYPE,
                    HeaderValue::from_static(format.content_type()),
                );
                if gzip {
                    headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                }
                headers.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
                response
            }
            Reply::Html { body, headers } => {
                let mut response = Response::new(Full::new(body));
                let map = response.headers_mut();
                map.insert(
                    CONTENT_TYPE,
                    HeaderValue::from_static("text/html; charset=utf-8"),
                );
                for (name, value) in headers {
                    map.insert(name.clone(), value.clone());
                }
                response
            }
            Reply::Page {
                status,
                content_type,
                body,
            } => {
                let mut response = Response::new(Full::new(body));
                *response.status_mut() = status;
                response
                    .headers_mut()
                    .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
                response
            }
        }
    }
}

fn compress(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(bytes.len() / 4), Compression::fast());
    encoder
        .write_all(bytes)
        .and_then(|()| encoder.finish())
        .expect("gzip into memory cannot fail")
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt;

    use super::*;

    async fn bytes(response: Response<Body>) -> Bytes {
        response.into_body().collect().await.unwrap().to_bytes()
    }

    #[tokio::test]
    async fn a_metrics_body_is_gzipped_when_asked_and_a_page_never() {
        let metrics = || Reply::Metrics {
            body: b"a 1\n".to_vec(),
            format: Format::Text,
        };
        let plain = metrics().into_response(false);
        assert!(plain.headers().get(CONTENT_ENCODING).is_none());
        assert_eq!(plain.headers()[VARY], "Accept-Encoding");
        assert_eq!(plain.headers()[CONTENT_TYPE], Format::Text.content_type());
        assert_eq!(bytes(plain).await, &b"a 1\n"[..]);

        let zipped = metrics().into_response(true);
        assert_eq!(zipped.headers()[CONTENT_ENCODING], "gzip");
        let zipped = bytes(zipped).await;
        let mut unzipped = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&zipped[..]),
            &mut unzipped,
        )
        .unwrap();
        assert_eq!(unzipped, b"a 1\n");

        let page = Reply::text(StatusCode::SERVICE_UNAVAILABLE, "Not ready\n").into_response(true);
        assert_eq!(page.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(page.headers().get(CONTENT_ENCODING).is_none());
    }
}
