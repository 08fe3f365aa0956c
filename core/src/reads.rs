//! One declaration of a family of typed reads: the enum of requests to send, the enum of their
//! typed answers (the arm of the same name), each read's [`crate::Meta`], how its answer is
//! decoded and how it is performed as a call. The reconciler's reads
//! ([`crate::reconcile::Read`]) and the tracker's ([`crate::track::TrackRead`]) are declared
//! with it.

/// Declares `$read` and `$answer` with their `meta`, `decode` and `call`, from one list of
/// `Variant(Request) => Answer, |o| wrap;` arms (`wrap` turns the decoded output `o` into the
/// answer's payload), and optionally one `@nested Variant(Inner) => InnerAnswer;` arm whose
/// read is itself such an enum.
macro_rules! typed_reads {
    (
        $(#[$rdoc:meta])* $read:ident;
        $(#[$adoc:meta])* $answer:ident;
        $($(#[$doc:meta])* $variant:ident($req:ty) => $ev:ty, |$o:ident| $wrap:expr;)*
        $(@nested $(#[$ndoc:meta])* $nvariant:ident($nread:ty) => $nans:ty;)?
    ) => {
        $(#[$rdoc])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $read {
            $($(#[$doc])* $variant($req),)*
            $($(#[$ndoc])* $nvariant($nread),)?
        }

        $(#[$adoc])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $answer {
            $(#[doc = concat!("Answer of [`", stringify!($read), "::", stringify!($variant), "`].")]
            $variant($ev),)*
            $(#[doc = concat!("Answer of [`", stringify!($read), "::", stringify!($nvariant), "`].")]
            $nvariant($nans),)?
        }

        impl $read {
            /// The endpoint's [`crate::Meta`] (its weight among others).
            pub fn meta(&self) -> crate::Meta {
                use crate::endpoint::Endpoint as _;
                match self {
                    $($read::$variant(_) => <$req>::META,)*
                    $($read::$nvariant(r) => r.meta(),)?
                }
            }

            /// The endpoint's stable name (`spot.order_current`).
            pub fn endpoint(&self) -> &'static str {
                self.meta().name
            }

            /// Decodes a success answer's body (HTTP 200) into the matching answer, for a
            /// transport of one's own that sends the read's request (and for tests).
            pub fn decode(&self, body: &[u8]) -> Result<$answer, crate::Error> {
                fn de<E: crate::endpoint::Endpoint>(
                    _: &E,
                    body: &[u8],
                ) -> Result<E::Output, crate::Error> {
                    crate::endpoint::parse_endpoint::<E>(200, &http::HeaderMap::new(), body)
                }
                Ok(match self {
                    $($read::$variant(r) => {
                        let $o = de(r, body)?;
                        $answer::$variant($wrap)
                    })*
                    $($read::$nvariant(r) => $answer::$nvariant(r.decode(body)?),)?
                })
            }

            /// The read as a call of `session` (its budget, retries and clock), whose output
            /// is the matching answer: what a transport drives to perform it.
            pub fn call<'a>(
                &'a self,
                session: &'a crate::session::Session,
            ) -> Box<dyn crate::session::Drive<Output = $answer> + Send + 'a> {
                fn mapped<'a, D: crate::session::Drive + Send + 'a>(
                    inner: D,
                    wrap: fn(D::Output) -> $answer,
                ) -> Box<dyn crate::session::Drive<Output = $answer> + Send + 'a> {
                    Box::new(crate::session::Mapped::new(inner, wrap))
                }
                match self {
                    $($read::$variant(r) => {
                        mapped(session.call(r), |$o| $answer::$variant($wrap))
                    })*
                    $($read::$nvariant(r) => mapped(r.call(session), $answer::$nvariant),)?
                }
            }
        }
    };
}

pub(crate) use typed_reads;
