//! TEMPORARY stand-in until the real redactor lands.
use std::borrow::Cow;
use std::collections::BTreeMap;
pub struct Redactor;
impl Redactor {
    pub fn new() -> Redactor {
        Redactor
    }
    pub fn kinds(&self) -> Vec<&'static str> {
        vec![]
    }
    pub fn redact<'a>(&self, text: &'a str, _tally: &mut BTreeMap<String, u64>) -> Cow<'a, str> {
        Cow::Borrowed(text)
    }
}
impl Default for Redactor {
    fn default() -> Self {
        Self::new()
    }
}
