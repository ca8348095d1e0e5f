//! A map for the few entries an execution keeps per tool or per model: a sorted `Vec`.
//!
//! Owns only the container. An execution's per-tool counts and per-model spend hold one to three
//! entries, and a `BTreeMap` takes a whole node (eleven slots) for the first: with a thousand
//! executions held, that was the largest part of `run`'s counting state. A sorted vector takes
//! four slots, iterates in the same order, and is read and written in the state file as the same
//! JSON object, so state files written before it still load. Lookups are binary searches; the
//! callers bound the length (admitted label values, [`super::spend::MAX_MODELS_PER_EXECUTION`]).
//!
//! **Not here:** what the entries mean ([`super::reconcile`], [`super::spend`]).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// String keys in ascending order, each with a value.
#[derive(Debug, Clone, PartialEq)]
pub struct SmallMap<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for SmallMap<V> {
    fn default() -> Self {
        SmallMap {
            entries: Vec::new(),
        }
    }
}

impl<V> SmallMap<V> {
    pub fn new() -> Self {
        Self::default()
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&V> {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.find(key).ok().map(|i| &mut self.entries[i].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// The value of `key`, inserted with `V::default()` if missing (the key is copied only then).
    pub fn entry_or_default(&mut self, key: &str) -> &mut V
    where
        V: Default,
    {
        let i = match self.find(key) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (key.to_string(), V::default()));
                i
            }
        };
        &mut self.entries[i].1
    }

    /// Sets `key` to `value`, returning the value it replaced.
    pub fn insert(&mut self, key: &str, value: V) -> Option<V> {
        match self.find(key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key.to_string(), value));
                None
            }
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }
}

impl<V: Serialize> Serialize for SmallMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for SmallMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<V>(PhantomData<V>);

        impl<'de, V: Deserialize<'de>> Visitor<'de> for Entries<V> {
            type Value = SmallMap<V>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut map = SmallMap::new();
                while let Some((key, value)) = access.next_entry::<String, V>()? {
                    map.insert(&key, value); // a repeated key keeps the last, as a BTreeMap does
                }
                Ok(map)
            }
        }

        deserializer.deserialize_map(Entries(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The same operations on a `BTreeMap` and a `SmallMap` leave the same entries, in the same
        /// order (the same JSON); each reads the other's JSON back.
        #[test]
        fn behaves_as_a_btreemap(ops in proptest::collection::vec(("[a-e]{0,2}", 0u64..5, any::<bool>()), 0..40)) {
            let (mut small, mut tree) = (SmallMap::new(), BTreeMap::new());
            for (key, value, add) in ops {
                if add {
                    *small.entry_or_default(&key) += value;
                    *tree.entry(key.clone()).or_default() += value;
                } else {
                    prop_assert_eq!(small.insert(&key, value), tree.insert(key.clone(), value));
                }
                prop_assert_eq!(small.get(&key), tree.get(&key));
            }
            let json = serde_json::to_string(&small).unwrap();
            prop_assert_eq!(&json, &serde_json::to_string(&tree).unwrap());
            prop_assert_eq!(serde_json::from_str::<SmallMap<u64>>(&json).unwrap(), small);
        }
    }
}
