use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::first_quote_escape_or_control;

/// The byte-by-byte answer.
fn one_by_one(bytes: &[u8]) -> Option<usize> {
    bytes
        .iter()
        .position(|byte| *byte == b'"' || *byte == b'\\' || *byte < 0x20)
}

#[test]
fn every_byte_at_every_place_of_words_and_the_tail_is_found_as_one_by_one() {
    for byte in 0u8..=0xff {
        for length in [1, 7, 8, 9, 16, 19] {
            for at in 0..length {
                let mut bytes = vec![b'a'; length];
                bytes[at] = byte;
                assert_eq!(
                    first_quote_escape_or_control(&bytes),
                    one_by_one(&bytes),
                    "byte {byte:#x} at {at} of {length}"
                );
            }
        }
    }
}

#[test]
fn the_first_of_two_in_one_word_is_found_whatever_the_second() {
    // A borrow runs on from the first byte found: the second must not be taken for it, nor
    // hide it.
    for first in 0u8..=0xff {
        for second in 0u8..=0xff {
            let bytes = [b'a', first, b'b', second, b'c', b'd', b'e', b'f', b'g'];
            assert_eq!(
                first_quote_escape_or_control(&bytes),
                one_by_one(&bytes),
                "bytes {first:#x} and {second:#x}"
            );
        }
    }
}

#[test]
fn text_with_none_or_several_is_read_as_one_by_one() {
    for text in [
        "",
        "2025-11-24T09:31:07.123Z",
        "response_item",
        "é — 😀 naïve café «cité», long enough for some words",
        "a \"quoted\" word",
        "line\nbreak",
        "back\\slash after a long run of plain text",
    ] {
        assert_eq!(
            first_quote_escape_or_control(text.as_bytes()),
            one_by_one(text.as_bytes()),
            "{text:?}"
        );
    }
}

proptest! {
    #[test]
    fn any_bytes_are_read_as_one_by_one(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        prop_assert_eq!(first_quote_escape_or_control(&bytes), one_by_one(&bytes));
    }
}
