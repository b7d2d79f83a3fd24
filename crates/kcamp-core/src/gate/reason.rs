//! A verdict's reasons as data: each has a kind, so a view can order or filter them (the why
//! before the method notes) without matching English, and the shapes and numbers it rests on.
//! Its `text` is the one English sentence every edge prints.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a reason is about, in the order a reader needs them: what decided the verdict first,
/// how the numbers were measured last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonKind {
    /// Shapes that do not PASS in the candidate (timed or only checked).
    Failure,
    /// Shapes regressed beyond the hard threshold.
    Regression,
    /// The two sides could not be compared like for like, or compare less than all shapes.
    Comparison,
    /// The aggregate's judgement: gain, band, noise floor.
    Aggregate,
    /// NEEDS_REMEASURE: what the re-measurements so far say.
    Remeasure,
    /// A quick ACCEPT that a full validation must confirm.
    Confirmation,
    /// Regressions beyond their band but within the threshold (ACCEPT_WITH_NOTE).
    NotedRegression,
    /// Changes outside the band that the significance test does not confirm.
    NotSignificant,
    /// Shapes that pass now and did not before.
    NewlyPassing,
    /// Rows held (or not) to a roofline floor.
    Plausibility,
    /// Which shapes were timed and which only checked.
    Coverage,
    /// How the run was measured: paired or not, against which round's numbers.
    Method,
}

impl ReasonKind {
    /// Whether reasons of this kind decide a verdict (rather than note how it was reached).
    pub fn decides(self) -> bool {
        matches!(
            self,
            ReasonKind::Failure
                | ReasonKind::Regression
                | ReasonKind::Comparison
                | ReasonKind::Aggregate
                | ReasonKind::Remeasure
                | ReasonKind::Confirmation
        )
    }
}

/// One reason of a verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reason {
    pub kind: ReasonKind,
    /// The sentence, as every command, report and the dashboard print it.
    pub text: String,
    /// The labels of the shapes it names, where it names any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shapes: Vec<String>,
    /// The change it judges (fraction: 0.10 is +10%).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<f64>,
    /// The band the change was held to (fraction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
}

impl Reason {
    pub fn new(kind: ReasonKind, text: impl Into<String>) -> Reason {
        Reason {
            kind,
            text: text.into(),
            shapes: Vec::new(),
            delta: None,
            band: None,
            p_value: None,
        }
    }

    pub fn with_shapes(mut self, shapes: impl IntoIterator<Item = impl Into<String>>) -> Reason {
        self.shapes = shapes.into_iter().map(Into::into).collect();
        self
    }

    pub fn with_numbers(mut self, delta: Option<f64>, band: Option<f64>, p: Option<f64>) -> Reason {
        self.delta = delta;
        self.band = band;
        self.p_value = p;
        self
    }

    /// A reason recorded before reasons had kinds (a plain sentence in an older round's
    /// record): its kind from the sentence kcamp wrote then.
    pub fn from_recorded_text(text: String) -> Reason {
        let has = |s: &str| text.contains(s);
        let kind = if has("not PASS") && !has("now PASS") {
            ReasonKind::Failure
        } else if has("regressed beyond -max(") || has(" regressed ") && has("beyond") {
            ReasonKind::Regression
        } else if text.starts_with("not like for like")
            || text.starts_with("judged over")
            || text.starts_with("the incumbent is the BASELINE")
        {
            ReasonKind::Comparison
        } else if text.starts_with("aggregate ") || text.starts_with("no shape passes on both") {
            ReasonKind::Aggregate
        } else if text.starts_with("re-measure") {
            ReasonKind::Remeasure
        } else if text.starts_with("quick ACCEPT") {
            ReasonKind::Confirmation
        } else if has("within their noise band") || has("beyond their noise band") {
            ReasonKind::NotedRegression
        } else if text.starts_with("outside the band but not significant") {
            ReasonKind::NotSignificant
        } else if text.starts_with("now PASS") {
            ReasonKind::NewlyPassing
        } else if text.starts_with("rows ") || text.starts_with("paired side:") {
            ReasonKind::Plausibility
        } else if text.starts_with("the outputs of") {
            ReasonKind::Coverage
        } else {
            ReasonKind::Method
        };
        Reason::new(kind, text)
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A reason reads as its sentence (`reason.contains("s64")`), as it did when reasons were
/// plain strings.
impl std::ops::Deref for Reason {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

/// A sentence with the kind kcamp writes it as (test fixtures, older records).
impl From<&str> for Reason {
    fn from(text: &str) -> Reason {
        text.to_owned().into()
    }
}

impl From<String> for Reason {
    fn from(text: String) -> Reason {
        Reason::from_recorded_text(text)
    }
}

/// A reason as written: an object with its kind, or (in records made before reasons had
/// kinds) the bare sentence.
#[derive(Deserialize)]
#[serde(untagged)]
enum Written {
    Typed {
        kind: ReasonKind,
        text: String,
        #[serde(default)]
        shapes: Vec<String>,
        #[serde(default)]
        delta: Option<f64>,
        #[serde(default)]
        band: Option<f64>,
        #[serde(default)]
        p_value: Option<f64>,
    },
    Text(String),
}

impl<'de> Deserialize<'de> for Reason {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Reason, D::Error> {
        Ok(match Written::deserialize(d)? {
            Written::Typed {
                kind,
                text,
                shapes,
                delta,
                band,
                p_value,
            } => Reason {
                kind,
                text,
                shapes,
                delta,
                band,
                p_value,
            },
            Written::Text(text) => Reason::from_recorded_text(text),
        })
    }
}

/// A verdict's reasons. Written as two fields of their report: `reasons`, the sentences (as
/// every reader before kinds expects them), and `reason_details`, each with its kind, shapes
/// and numbers. A record with only the sentences reads back with the kinds they were
/// written as.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reasons(pub Vec<Reason>);

impl std::ops::Deref for Reasons {
    type Target = Vec<Reason>;
    fn deref(&self) -> &Vec<Reason> {
        &self.0
    }
}

impl std::ops::DerefMut for Reasons {
    fn deref_mut(&mut self) -> &mut Vec<Reason> {
        &mut self.0
    }
}

impl From<Vec<Reason>> for Reasons {
    fn from(reasons: Vec<Reason>) -> Reasons {
        Reasons(reasons)
    }
}

impl<'a> IntoIterator for &'a Reasons {
    type Item = &'a Reason;
    type IntoIter = std::slice::Iter<'a, Reason>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl FromIterator<Reason> for Reasons {
    fn from_iter<I: IntoIterator<Item = Reason>>(items: I) -> Reasons {
        Reasons(items.into_iter().collect())
    }
}

impl Serialize for Reasons {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("reasons", &reason_texts(&self.0))?;
        map.serialize_entry("reason_details", &self.0)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for Reasons {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Reasons, D::Error> {
        #[derive(Deserialize)]
        struct Written {
            #[serde(default)]
            reasons: Vec<String>,
            #[serde(default)]
            reason_details: Option<Vec<Reason>>,
        }
        let w = Written::deserialize(d)?;
        Ok(Reasons(match w.reason_details {
            Some(details) if details.len() == w.reasons.len() => details,
            _ => w
                .reasons
                .into_iter()
                .map(Reason::from_recorded_text)
                .collect(),
        }))
    }
}

/// The sentences alone.
pub fn reason_texts(reasons: &[Reason]) -> Vec<&str> {
    reasons.iter().map(|r| r.text.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_round_trips_with_its_kind_and_numbers() {
        let r = Reason::new(ReasonKind::Regression, "1 shape regressed")
            .with_shapes(["s64"])
            .with_numbers(Some(-0.1), Some(0.02), None);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"regression","text":"1 shape regressed","shapes":["s64"],"delta":-0.1,"band":0.02}"#
        );
        assert_eq!(serde_json::from_str::<Reason>(&json).unwrap(), r);
    }

    #[test]
    fn a_recorded_sentence_gets_the_kind_it_was_written_as() {
        for (text, kind) in [
            (
                "1 of 4 shapes does not PASS in the candidate: s64 (FAIL).",
                ReasonKind::Failure,
            ),
            (
                "2 shapes regressed beyond -max(5.00%, band): s64 -49.6% (band ±16.1%).",
                ReasonKind::Regression,
            ),
            (
                "aggregate Forward TFLOPS (geomean over 4 shapes passing on both sides) -16.2% (1 -> 2) is not a gain.",
                ReasonKind::Aggregate,
            ),
            (
                "paired: round 1's kernel snapshot was re-measured in this run",
                ReasonKind::Method,
            ),
            (
                "now PASS (not part of the aggregate): s1 (was FAIL).",
                ReasonKind::NewlyPassing,
            ),
        ] {
            let r: Reason = serde_json::from_value(serde_json::json!(text)).unwrap();
            assert_eq!((r.kind, r.text.as_str()), (kind, text));
        }
    }

    #[test]
    fn the_kinds_that_decide_are_not_notes() {
        assert!(ReasonKind::Aggregate.decides() && ReasonKind::Failure.decides());
        assert!(!ReasonKind::Method.decides() && !ReasonKind::NotSignificant.decides());
    }
}
