//! Currencies, deposit addresses, deposits and withdrawals.
//!
//! DESIGN:
//! - Deposit addresses are derived from the seed, account, currency and chain (stable per
//!   account); currencies with a memo get the account id as `addressTag`. A currency with several
//!   chains lists one address per chain.
//! - Deposits are created by the control API (state 3 credits the spot account at once; states 1
//!   and 2 wait for a state change; 4 never credits).
//! - `/withdraw/new` checks, in order: currency (20021), withdrawals enabled (20034), chain
//!   (USDT requires ERC20 or OMNI; a chain the currency lacks: 10004), address on the whitelist
//!   for that currency (20038), chain and memo matching the whitelist entry (20037), amount a
//!   positive number (10004), amount at least the minimum and above the fee (20035), frequency
//!   (3 in the last 60 s, 100 in the last 24 h: 20040), daily quota (20041), balance (20011).
//!   The fee is `max(amount * rate, min_fee)`, included in `amount`: the spot balance is debited
//!   `amount` (frozen until completion) and the recipient gets `amount - fee`.
//! - Withdrawal states move 1 -> 2 -> 3, or 1/2 -> 4, through the control API. There is no
//!   cancelled state in the spec, so a user cancel (allowed only in state 1; 20039 otherwise) sets
//!   state 4 and returns the frozen amount. 20033 for an unknown or foreign id.
//! - `/withdraw/cancel` takes `withdraw_id` as a form (or query) parameter; since the spec also
//!   describes it as "carried in the path", `/withdraw/cancel/{id}` is accepted too.
//! - History paging: `direct=prev` lists ascending from `from` (default: the first record),
//!   `direct=next` descending from `from` (default: the newest record), both inclusive.
//!   `created_date`/`update_date` are `YYYY-MM-DD HH:MM:SS` (UTC).

use super::{err, err_msg, ok200, Ctx, SpotErr, R};
use crate::clock::datetime_text;
use crate::config::CurrencySpec;
use crate::engine::accounts::AccountType;
use crate::engine::spot::engine::{Deposit, Withdrawal};
use crate::engine::spot::wallet::{address_for, set_withdrawal_state};
use crate::json::J;
use crate::num::parse_dec;
use rust_decimal::Decimal;

/// `GET /currencies`.
pub fn currencies(c: &mut Ctx<'_>) -> R {
    let only = c.p.get("currency").map(str::to_ascii_uppercase);
    let data: Vec<J> = c
        .config
        .currencies
        .iter()
        .filter(|x| only.as_ref().is_none_or(|o| &x.currency == o))
        .map(|x| {
            J::obj()
                .with("currency", x.currency.as_str())
                .with("chain", x.chain.as_str())
                .with("min_deposit_amount", x.min_deposit)
                .with("min_withdraw_amount", x.min_withdraw)
                .with("deposit_status", i64::from(x.deposit_enabled))
                .with("withdraw_status", i64::from(x.withdraw_enabled))
                .with("withdraw_fee_currency", x.currency.as_str())
                .with("min_withdraw_fee", x.min_fee)
                .with("withdraw_fee_rate", x.fee_rate)
        })
        .collect();
    Ok(ok200().with("data", data))
}

fn rows<'a>(c: &'a Ctx<'_>, currency: &str) -> Vec<&'a CurrencySpec> {
    c.config
        .currencies
        .iter()
        .filter(|x| x.currency == currency)
        .collect()
}

/// `GET /deposit/address`.
pub fn deposit_address(c: &mut Ctx<'_>) -> R {
    let cur = c.p.req("currency")?.to_ascii_uppercase();
    let list = rows(c, &cur);
    if list.is_empty() {
        return Err(err(20021));
    }
    let seed = c.config.seed;
    let data: Vec<J> = list
        .iter()
        .map(|x| {
            J::obj()
                .with("currency", x.currency.as_str())
                .with("address", address_for(seed, c.user, &x.currency, &x.chain))
                .with(
                    "addressTag",
                    if x.memo {
                        c.user.to_string()
                    } else {
                        String::new()
                    },
                )
                .with("chain", x.chain.as_str())
        })
        .collect();
    Ok(ok200().with("data", data))
}

struct Page {
    currency: Option<String>,
    from: Option<u64>,
    size: usize,
    next: bool,
}

fn page(c: &Ctx<'_>) -> Result<Page, SpotErr> {
    let currency = c.p.get("currency").map(str::to_ascii_uppercase);
    let from = match c.p.int("from")? {
        None => None,
        Some(v) if v >= 0 => Some(u64::try_from(v).unwrap_or(0)),
        Some(_) => return Err(err_msg(10004, "from must not be negative")),
    };
    let size = c.p.limit("size", 100, 500)?;
    let next = match c.p.get("direct") {
        None | Some("prev") => false,
        Some("next") => true,
        Some(_) => return Err(err_msg(10004, "direct must be prev or next")),
    };
    Ok(Page {
        currency,
        from,
        size,
        next,
    })
}

fn paged<'a, T>(items: Vec<&'a T>, id: impl Fn(&T) -> u64, p: &Page) -> Vec<&'a T> {
    if p.next {
        items
            .into_iter()
            .rev()
            .filter(|x| p.from.is_none_or(|f| id(x) <= f))
            .take(p.size)
            .collect()
    } else {
        items
            .into_iter()
            .filter(|x| p.from.is_none_or(|f| id(x) >= f))
            .take(p.size)
            .collect()
    }
}

fn dt(ms: i64) -> String {
    datetime_text(ms.div_euclid(1000))
}

/// `GET /deposit/history`.
pub fn deposit_history(c: &mut Ctx<'_>) -> R {
    let p = page(c)?;
    let mine: Vec<&Deposit> =
        c.st.spot
            .deposits
            .iter()
            .filter(|d| d.account == c.user && p.currency.as_ref().is_none_or(|x| &d.currency == x))
            .collect();
    let data: Vec<J> = paged(mine, |d| d.id, &p)
        .into_iter()
        .map(|d| {
            J::obj()
                .with("id", d.id)
                .with("currency", d.currency.as_str())
                .with("hashId", d.hash.as_str())
                .with("chain", d.chain.as_str())
                .with("amount", crate::json::fmt_dec(d.amount))
                .with("address", d.address.as_str())
                .with("state", i64::from(d.state))
                .with("created_date", dt(d.created_ms))
                .with("update_date", dt(d.updated_ms))
        })
        .collect();
    Ok(ok200().with("data", data))
}

/// `GET /withdraw/history`.
pub fn withdraw_history(c: &mut Ctx<'_>) -> R {
    let p = page(c)?;
    let mine: Vec<&Withdrawal> =
        c.st.spot
            .withdrawals
            .iter()
            .filter(|w| w.account == c.user && p.currency.as_ref().is_none_or(|x| &w.currency == x))
            .collect();
    let data: Vec<J> = paged(mine, |w| w.id, &p)
        .into_iter()
        .map(|w| {
            J::obj()
                .with("id", w.id)
                .with("currency", w.currency.as_str())
                .with("hashId", w.hash.as_str())
                .with("chain", w.chain.as_str())
                .with("amount", w.amount)
                .with("address", w.address.as_str())
                .with("memo", w.memo.as_str())
                .with("fee", crate::json::fmt_dec(w.fee))
                .with("state", i64::from(w.state))
                .with("created_date", dt(w.created_ms))
                .with("update_date", dt(w.updated_ms))
        })
        .collect();
    Ok(ok200().with("data", data))
}

/// The withdrawal fee rule: `max(amount * rate, min_fee)`.
pub fn withdraw_fee(spec: &CurrencySpec, amount: Decimal) -> Decimal {
    (amount * spec.fee_rate).max(spec.min_fee)
}

/// `POST /withdraw/new`.
pub fn withdraw_new(c: &mut Ctx<'_>) -> R {
    let cur = c.p.req("currency")?.to_ascii_uppercase();
    let list = rows(c, &cur);
    if list.is_empty() {
        return Err(err(20021));
    }
    let chain = c.p.get("chain").unwrap_or("").trim().to_owned();
    let spec = if list.len() > 1 || !list.iter().any(|x| x.chain.is_empty()) {
        if chain.is_empty() {
            return Err(err_msg(10004, "chain is required for this currency"));
        }
        list.iter()
            .find(|x| x.chain.eq_ignore_ascii_case(&chain))
            .ok_or_else(|| err_msg(10004, "unknown chain for this currency"))?
    } else {
        if !chain.is_empty() {
            return Err(err_msg(10004, "this currency takes no chain"));
        }
        list.first().ok_or_else(|| err(20021))?
    };
    let spec = (*spec).clone();
    if !spec.withdraw_enabled {
        return Err(err(20034));
    }
    let address = c.p.req("address")?.trim().to_owned();
    let memo = c.p.get("memo").unwrap_or("").trim().to_owned();
    let wl: Vec<_> =
        c.st.accounts
            .get(&c.user)
            .map(|a| a.withdraw_whitelist.clone())
            .unwrap_or_default()
            .into_iter()
            .filter(|w| w.currency == cur && w.address == address)
            .collect();
    if wl.is_empty() {
        return Err(err(20038));
    }
    if !wl
        .iter()
        .any(|w| w.chain.eq_ignore_ascii_case(&spec.chain) && w.memo == memo)
    {
        return Err(err(20037));
    }
    let amount = parse_dec(c.p.req("amount")?)
        .filter(|a| *a > Decimal::ZERO)
        .ok_or_else(|| err_msg(10004, "amount must be a positive number"))?;
    let fee = withdraw_fee(&spec, amount);
    if amount < spec.min_withdraw || amount <= fee {
        return Err(err(20035));
    }
    let now = c.now_ms;
    let mine: Vec<&Withdrawal> =
        c.st.spot
            .withdrawals
            .iter()
            .filter(|w| w.account == c.user)
            .collect();
    if c.config.limits.withdraw_frequency {
        let last_minute = mine.iter().filter(|w| w.created_ms > now - 60_000).count();
        let last_day = mine
            .iter()
            .filter(|w| w.created_ms > now - 86_400_000)
            .count();
        if last_minute >= 3 || last_day >= 100 {
            return Err(err(20040));
        }
    }
    if let Some(quota) = spec.daily_quota {
        let used: Decimal = mine
            .iter()
            .filter(|w| w.currency == cur && w.created_ms > now - 86_400_000 && w.state != 4)
            .map(|w| w.amount)
            .sum();
        if used + amount > quota {
            return Err(err(20041));
        }
    }
    let acct = c.st.account(c.user);
    acct.freeze(AccountType::Spot, &cur, amount)
        .map_err(|_| err(20011))?;
    let id = c.st.spot.next_wallet_id;
    c.st.spot.next_wallet_id += 1;
    c.st.spot.withdrawals.push(Withdrawal {
        id,
        account: c.user,
        currency: cur,
        chain: spec.chain.clone(),
        amount,
        fee,
        address,
        memo,
        hash: String::new(),
        state: 1,
        created_ms: now,
        updated_ms: now,
    });
    Ok(ok200().with("withdraw_id", id))
}

/// `POST /withdraw/cancel`.
pub fn withdraw_cancel(c: &mut Ctx<'_>) -> R {
    let text = match &c.path_arg {
        Some(a) => a.clone(),
        None => c.p.req("withdraw_id")?.to_owned(),
    };
    let id = crate::num::parse_int(&text)
        .and_then(|id| u64::try_from(id).ok())
        .ok_or_else(|| err(20033))?;
    let w =
        c.st.spot
            .withdrawals
            .iter()
            .find(|w| w.id == id && w.account == c.user)
            .ok_or_else(|| err(20033))?;
    if w.state != 1 {
        return Err(err(20039));
    }
    set_withdrawal_state(c.st, id, 4, c.now_ms).map_err(|_| err(20036))?;
    Ok(ok200().with("withdraw_id", id))
}
