//! Where `market export --dataset` and `record --out` write: a local path, or `s3://bucket/prefix`
//! with the `s3` feature (credentials, region and endpoint from the standard AWS environment
//! variables: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
//! AWS_ENDPOINT_URL, AWS_ALLOW_HTTP=true for a plain-http endpoint).

use crate::Failure;
use digifinex_export::store::{LocalDir, Storage};

/// Whether `target` names object storage rather than a local path.
pub(crate) fn is_url(target: &str) -> bool {
    target.contains("://")
}

/// The storage at `target` (`flag` names the option in messages).
pub(crate) fn open(target: &str, flag: &str) -> Result<Box<dyn Storage>, Failure> {
    if !is_url(target) {
        return Ok(Box::new(LocalDir::new(target)));
    }
    if !target.starts_with("s3://") {
        return Err(Failure::Usage(format!(
            "{flag} {target}: a local path or s3://bucket/prefix"
        )));
    }
    s3(target, flag)
}

#[cfg(feature = "s3")]
fn s3(target: &str, flag: &str) -> Result<Box<dyn Storage>, Failure> {
    digifinex_export::s3::S3::from_env(target)
        .map(|s| Box::new(s) as Box<dyn Storage>)
        .map_err(|e| Failure::Usage(format!("{flag} {e}")))
}

#[cfg(not(feature = "s3"))]
fn s3(target: &str, flag: &str) -> Result<Box<dyn Storage>, Failure> {
    Err(Failure::Usage(format!(
        "{flag} {target}: this digifinex was built without the `s3` feature (cargo build -p \
         digifinex-cli --features s3)"
    )))
}

/// Splits `s3://bucket/prefix/name` into the storage at `s3://bucket/prefix` and `name`.
pub(crate) fn open_object(target: &str, flag: &str) -> Result<(Box<dyn Storage>, String), Failure> {
    let (parent, name) = target
        .rsplit_once('/')
        .filter(|(p, n)| !n.is_empty() && p.len() > "s3:/".len())
        .ok_or_else(|| {
            Failure::Usage(format!(
                "{flag} {target}: name the object (s3://bucket/prefix/NAME.jsonl.gz)"
            ))
        })?;
    Ok((open(parent, flag)?, name.to_owned()))
}
