//! The effects a gate may ask of the disposition, and their precedence as
//! data: the disposition is the one of the strongest effect any gate asked
//! for, whatever the order the gates ran in.

use crate::types::Disposition;

/// What a gate's check asks of the disposition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Nothing: as far as this gate goes, the memory may be active.
    Keep,
    /// Stored for review, never used for decisions.
    Review,
    /// Valid only for the current task: kept in task state.
    TaskState,
    /// Not stored.
    Reject,
}

/// The precedence of the effects, strongest first, and the disposition
/// each gives.
pub const PRECEDENCE: [(Effect, Disposition); 4] = [
    (Effect::Reject, Disposition::Rejected),
    (Effect::TaskState, Disposition::Working),
    (Effect::Review, Disposition::Pending),
    (Effect::Keep, Disposition::Active),
];

/// The disposition the effects give together: that of the first entry of
/// `PRECEDENCE` any of them asks for; `active` when none asks anything.
pub fn fold(effects: impl IntoIterator<Item = Effect> + Clone) -> Disposition {
    PRECEDENCE
        .iter()
        .find(|(e, _)| effects.clone().into_iter().any(|x| x == *e))
        .map(|(_, d)| *d)
        .unwrap_or(Disposition::Active)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strongest_effect_decides_whatever_the_order() {
        use Effect::*;
        assert_eq!(fold([]), Disposition::Active);
        assert_eq!(fold([Keep, Keep]), Disposition::Active);
        assert_eq!(fold([Keep, Review]), Disposition::Pending);
        assert_eq!(fold([Review, TaskState]), Disposition::Working);
        assert_eq!(fold([TaskState, Review]), Disposition::Working);
        assert_eq!(fold([Reject, TaskState, Review]), Disposition::Rejected);
        assert_eq!(fold([Review, Keep, Reject]), Disposition::Rejected);
    }

    #[test]
    fn every_effect_has_one_place_in_the_precedence() {
        for e in [
            Effect::Keep,
            Effect::Review,
            Effect::TaskState,
            Effect::Reject,
        ] {
            assert_eq!(PRECEDENCE.iter().filter(|(x, _)| *x == e).count(), 1);
        }
    }
}
