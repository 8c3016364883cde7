//! Fitting items to the budget: compress lowest priority first, then drop,
//! then hand freed space back highest priority first; a never-drop item
//! that cannot fit is an error naming what it costs.

use super::items::Item;
use super::text::heapsort;
use crate::analysis::tokens::tokens_of;
use crate::analysis::tokens::Centi;
use crate::core::config::PackPart;
use crate::types::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Full,
    Short,
    Dropped,
}

pub(super) struct Layout<'a> {
    pub(super) items: &'a [Item],
    pub(super) section_of: &'a [usize],
    pub(super) heading_cost: Vec<Centi>,
    pub(super) always: Vec<bool>,
}

/// The running cost of a choice of forms, updated one item at a time.
struct Tally<'a> {
    layout: &'a Layout<'a>,
    forms: Vec<Form>,
    present: Vec<usize>,
    total: Centi,
}

impl<'a> Tally<'a> {
    fn new(layout: &'a Layout<'a>) -> Tally<'a> {
        let mut t = Tally {
            layout,
            forms: vec![Form::Dropped; layout.items.len()],
            present: vec![0; layout.heading_cost.len()],
            total: 0,
        };
        for (s, always) in layout.always.iter().enumerate() {
            if *always {
                t.total += layout.heading_cost[s];
            }
        }
        t
    }

    fn cost(&self, i: usize, form: Form) -> Centi {
        let it = &self.layout.items[i];
        match form {
            Form::Full => it.full_cost,
            Form::Short => it.short.as_ref().map_or(it.full_cost, |s| s.1),
            Form::Dropped => 0,
        }
    }

    fn set(&mut self, i: usize, form: Form) {
        let old = self.forms[i];
        if old == form {
            return;
        }
        let s = self.layout.section_of[i];
        let heading = if self.layout.always[s] {
            0
        } else {
            self.layout.heading_cost[s]
        };
        self.total += self.cost(i, form);
        if old == Form::Dropped {
            if self.present[s] == 0 {
                self.total += heading;
            }
            self.present[s] += 1;
        }
        self.total -= self.cost(i, old);
        if form == Form::Dropped {
            self.present[s] -= 1;
            if self.present[s] == 0 {
                self.total -= heading;
            }
        }
        self.forms[i] = form;
    }
}

/// Choose a form for every item so the total stays within `limit`
/// (hundredths of a token): compress lowest priority first, then drop in
/// the same order, then hand freed space back highest priority first.
pub(super) fn fit(layout: &Layout, limit: Centi, budget: u32) -> Result<Vec<Form>, Error> {
    let items = layout.items;
    let mut t = Tally::new(layout);
    for (i, it) in items.iter().enumerate() {
        if it.mandatory {
            t.set(i, Form::Full);
        }
    }
    if t.total > limit {
        return Err(never_drop_error(layout, t.total, budget));
    }
    // Victim order: priority, then the item's own order, section, position,
    // packed in one key.
    let mut keys: Vec<u128> = (0..items.len())
        .filter(|&i| !items[i].mandatory)
        .map(|i| {
            (items[i].priority as u128) << 120
                | (items[i].victim as u128) << 56
                | (layout.section_of[i].min(0xFF) as u128) << 48
                | i as u128
        })
        .collect();
    heapsort(&mut keys);
    let victims: Vec<usize> = keys
        .iter()
        .map(|k| (k & 0xFFFF_FFFF_FFFF) as usize)
        .collect();
    for &v in &victims {
        t.set(v, Form::Full);
    }
    for &v in &victims {
        if t.total <= limit {
            break;
        }
        if items[v].short.is_some() {
            t.set(v, Form::Short);
        }
    }
    for &v in &victims {
        if t.total <= limit {
            break;
        }
        t.set(v, Form::Dropped);
    }
    // Hand back what the last drop freed, highest priority first; nothing
    // below the priority of an item that stays dropped comes back.
    let mut barrier = 0u8;
    for &v in victims.iter().rev() {
        let was = t.forms[v];
        if was == Form::Full || items[v].priority < barrier {
            continue;
        }
        t.set(v, Form::Full);
        if t.total <= limit {
            continue;
        }
        if items[v].short.is_some() {
            t.set(v, Form::Short);
            if t.total <= limit {
                continue;
            }
        }
        t.set(v, was);
        if was == Form::Dropped {
            barrier = items[v].priority;
        }
    }
    Ok(t.forms)
}

fn never_drop_error(layout: &Layout, total: Centi, budget: u32) -> Error {
    let items = layout.items;
    let system: Centi = items
        .iter()
        .filter(|it| it.mandatory && it.part == PackPart::System)
        .map(|it| it.full_cost)
        .sum();
    let requests: Vec<&Item> = items
        .iter()
        .filter(|it| it.mandatory && it.part != PackPart::System)
        .collect();
    let request_cost: Centi = requests.iter().map(|it| it.full_cost).sum();
    let refs: Vec<&str> = requests.iter().map(|it| it.reference.as_str()).collect();
    Error::LimitExceeded(format!(
        "the parts that are never dropped need {} tokens, over the budget of {budget}: \
         system policy {}, original request and other messages at or above the never-drop \
         priority {} ({}), headings {}",
        tokens_of(total),
        tokens_of(system),
        tokens_of(request_cost),
        if refs.is_empty() {
            "none".to_string()
        } else {
            refs.join(", ")
        },
        tokens_of(total.saturating_sub(system + request_cost)),
    ))
}
