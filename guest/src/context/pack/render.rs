//! The fitted items written out: the text, section by section, and the
//! manifest's lists of what was dropped and what was compressed.

use std::collections::BTreeSet;

use super::fit::Form;
use super::fit::Layout;
use super::items::Item;
use super::reference::dropped;
use crate::analysis::tokens::measure;
use crate::analysis::tokens::tokens_of;
use crate::analysis::tokens::Centi;
use crate::core::config::PackPolicy;
use crate::types::CompressedItem;
use crate::types::DropReason;
use crate::types::DroppedItem;
use crate::types::PackSection;

/// The packed text and its sections (tokens by cumulative count, so they
/// add up to the whole).
pub(super) fn render(
    cfg: &PackPolicy,
    layout: &Layout,
    headings: &[String],
    forms: &[Form],
) -> (String, Vec<PackSection>) {
    let mut text = String::new();
    let mut sections = Vec::new();
    let mut cumulative: Centi = 0;
    let mut counted = 0u32;
    for (s, spec) in cfg.sections.iter().enumerate() {
        let members: Vec<usize> = (0..layout.items.len())
            .filter(|&i| layout.section_of[i] == s && forms[i] != Form::Dropped)
            .collect();
        if members.is_empty() && !spec.always {
            continue;
        }
        let mut body = headings[s].clone();
        for &i in &members {
            let it = &layout.items[i];
            match (forms[i], &it.short) {
                (Form::Short, Some((line, _, _))) => body.push_str(line),
                _ => body.push_str(&it.full),
            }
        }
        cumulative += measure(&body);
        let upto = tokens_of(cumulative);
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&body);
        sections.push(PackSection {
            name: spec.name.to_string(),
            tokens: upto - counted,
            items: members
                .iter()
                .map(|&i| layout.items[i].reference.clone())
                .collect(),
        });
        counted = upto;
    }
    (text, sections)
}

/// Items matching `keep`, in section order, then item order.
fn in_section_order(section_of: &[usize], keep: impl Fn(usize) -> bool) -> Vec<usize> {
    let sections = section_of.iter().max().map_or(0, |m| m + 1);
    (0..sections)
        .flat_map(|s| (0..section_of.len()).filter(move |&i| section_of[i] == s))
        .filter(|&i| keep(i))
        .collect()
}

/// Every left-out item once: the recall-stage reasons first, then what the
/// budget dropped, in section order.
pub(super) fn manifest_drops(
    items: &[Item],
    section_of: &[usize],
    forms: &[Form],
    early: Vec<DroppedItem>,
) -> Vec<DroppedItem> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (it, f) in items.iter().zip(forms) {
        if *f != Form::Dropped {
            seen.insert(it.reference.clone());
        }
    }
    let budget = in_section_order(section_of, |i| forms[i] == Form::Dropped)
        .into_iter()
        .map(|i| dropped(items[i].reference.clone(), DropReason::Budget));
    let mut out = Vec::new();
    for d in early.into_iter().chain(budget) {
        if seen.insert(d.reference.clone()) {
            out.push(d);
        }
    }
    out
}

/// Compressed items with their summaries, in section order.
pub(super) fn manifest_compressed(
    items: &[Item],
    section_of: &[usize],
    forms: &[Form],
) -> Vec<CompressedItem> {
    in_section_order(section_of, |i| forms[i] == Form::Short)
        .into_iter()
        .filter_map(|i| {
            items[i]
                .short
                .as_ref()
                .map(|(_, _, summary)| CompressedItem {
                    reference: items[i].reference.clone(),
                    summary: summary.clone(),
                })
        })
        .collect()
}
