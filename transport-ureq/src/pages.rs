//! Iterators over a [`Pager`].

use digifinex_core::paging::Pager;
use digifinex_core::Error;

use crate::Client;

/// The pages of a listing: each item of the iterator is one page's new items, or the error
/// that ended the listing (the iterator then ends). See [`Client::pages`].
#[derive(Debug)]
pub struct Pages<'c, P> {
    client: &'c Client,
    pager: P,
    failed: bool,
}

impl<'c, P: Pager> Pages<'c, P> {
    pub(crate) fn new(client: &'c Client, pager: P) -> Self {
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
}

impl<P: Pager> Iterator for Pages<'_, P> {
    type Item = Result<Vec<P::Item>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let request = self.pager.next_request(self.client.session().now())?;
        match self.client.send(&request) {
            Ok(output) => Some(Ok(self.pager.on_page(output))),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// The items of a listing, one by one, fetching pages as needed; an error ends it. See
/// [`Client::items`].
pub struct Items<'c, P: Pager> {
    pages: Pages<'c, P>,
    buffer: std::collections::VecDeque<P::Item>,
}

impl<'c, P: Pager> Items<'c, P> {
    pub(crate) fn new(client: &'c Client, pager: P) -> Self {
        Items {
            pages: Pages::new(client, pager),
            buffer: std::collections::VecDeque::new(),
        }
    }

    /// The pager.
    pub fn pager(&self) -> &P {
        self.pages.pager()
    }
}

impl<P: Pager + std::fmt::Debug> std::fmt::Debug for Items<'_, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Items")
            .field("pager", self.pages.pager())
            .field("buffered", &self.buffer.len())
            .finish()
    }
}

impl<P: Pager> Iterator for Items<'_, P> {
    type Item = Result<P::Item, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.buffer.pop_front() {
                return Some(Ok(item));
            }
            match self.pages.next()? {
                Ok(page) => self.buffer.extend(page),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}
