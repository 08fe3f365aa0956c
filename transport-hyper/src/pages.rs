//! Async paging over a [`Pager`]: [`Pages::next_page`], or a [`futures_core::Stream`].

use std::collections::VecDeque;

use digifinex_core::paging::Pager;
use digifinex_core::{Endpoint, Error};
use futures_core::Stream;
use hyper_util::client::legacy::connect::Connect;

use crate::Client;

/// A listing walked page by page (see [`Client::pages`]). Owns a clone of the client, so it
/// and its streams are `'static`.
#[derive(Debug)]
pub struct Pages<C, P> {
    client: Client<C>,
    pager: P,
    failed: bool,
}

impl<C, P> Pages<C, P>
where
    C: Connect + Clone + Send + Sync + 'static,
    P: Pager,
{
    pub(crate) fn new(client: Client<C>, pager: P) -> Self {
        Pages {
            client,
            pager,
            failed: false,
        }
    }

    /// The pager (for example to ask [`WindowPager::truncated`] after the walk).
    ///
    /// [`WindowPager::truncated`]: digifinex_core::paging::WindowPager::truncated
    pub fn pager(&self) -> &P {
        &self.pager
    }

    /// The next page's new items; `None` when the listing is exhausted or after an error.
    pub async fn next_page(&mut self) -> Option<Result<Vec<P::Item>, Error>>
    where
        P::Request: Sync,
        <P::Request as Endpoint>::Output: Send,
    {
        if self.failed {
            return None;
        }
        let request = self.pager.next_request(self.client.session().now())?;
        match self.client.send(&request).await {
            Ok(output) => Some(Ok(self.pager.on_page(output))),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }

    /// The pages as a stream (an error is the last element).
    pub fn into_stream(self) -> impl Stream<Item = Result<Vec<P::Item>, Error>> + Send
    where
        P: Send,
        P::Item: Send,
        P::Request: Send + Sync,
        <P::Request as Endpoint>::Output: Send,
    {
        futures_util::stream::unfold(self, |mut pages| async move {
            let page = pages.next_page().await?;
            Some((page, pages))
        })
    }

    /// The items one by one as a stream (an error is the last element).
    pub fn into_item_stream(self) -> impl Stream<Item = Result<P::Item, Error>> + Send
    where
        P: Send,
        P::Item: Send,
        P::Request: Send + Sync,
        <P::Request as Endpoint>::Output: Send,
    {
        let state = (self, VecDeque::new());
        futures_util::stream::unfold(state, |(mut pages, mut buffer)| async move {
            loop {
                if let Some(item) = buffer.pop_front() {
                    return Some((Ok(item), (pages, buffer)));
                }
                match pages.next_page().await? {
                    Ok(page) => buffer.extend(page),
                    Err(e) => return Some((Err(e), (pages, buffer))),
                }
            }
        })
    }
}
