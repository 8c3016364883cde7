//! The cue families: `guest/vocab/cues/*.txt`, one file per family (its
//! header gives its purpose, syntax and source), compiled by `guest/build.rs`
//! (`build/cues.rs`) into the `Cues` struct, its one value `CUES`, the
//! `CueFamily` enum and the `ScanList` enum of the families `%scan` marks.
//! Adding a family is one data file plus its use (`wp.cues.<name>`); no
//! list of families is kept by hand.

/// A list of cues in the cue syntax (`guest/vocab/README.md`,
/// `crate::analysis::cues`).
pub type CueList = &'static [&'static str];

include!(concat!(env!("OUT_DIR"), "/cue_tables.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_a_field_with_cues() {
        assert!(CueFamily::ALL.len() >= 78);
        for f in CueFamily::ALL {
            let groups = f.groups();
            assert!(!groups.is_empty(), "{}", f.name());
            assert!(groups.iter().all(|(_, c)| !c.is_empty()), "{}", f.name());
        }
        assert_eq!(CueFamily::Persistence.groups()[0].1, CUES.persistence);
        assert_eq!(CueFamily::InjectionMarkers.groups(), CUES.injection_markers);
        assert_eq!(CueFamily::Predicates.name(), "predicates");
    }

    #[test]
    fn scan_lists_follow_the_enum() {
        let lists = CUES.scan_lists();
        assert_eq!(lists.len(), SCAN_LISTS);
        assert_eq!(lists[ScanList::Deferral as usize], CUES.deferral);
        assert_eq!(
            lists[ScanList::PreferenceVerbs as usize],
            CUES.preference_verbs
        );
        assert_eq!(
            lists[ScanList::TaskScopeTraps as usize],
            CUES.task_scope_traps
        );
    }

    #[test]
    fn the_data_keeps_its_exact_cues() {
        // Quoted lines keep their edges; `#` and `%` lines can be cues.
        assert!(CUES.injection_markers.iter().any(|(g, c)| {
            *g == "fake system or role markup" && c.contains(&"### instruction")
        }));
        assert!(CUES.passport_keywords.contains(&"dl#"));
        assert!(CUES.injection_override.contains(&"<!--"));
        assert!(CUES.injection_markers[0].1.contains(&"ignore…instructions"));
    }
}
