use pretty_assertions::assert_eq;

use super::*;

/// `bytes` as standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let word = chunk.iter().enumerate().fold(0u32, |word, (index, byte)| {
            word | (u32::from(*byte) << (16 - 8 * index))
        });
        for index in 0..4 {
            if index <= chunk.len() {
                out.push(char::from(
                    ALPHABET[((word >> (18 - 6 * index)) & 63) as usize],
                ));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn url(media_type: &str, bytes: &[u8]) -> String {
    format!("data:{media_type};base64,{}", base64(bytes))
}

fn png(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13];
    bytes.extend_from_slice(b"IHDR");
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0xDD]);
    bytes
}

#[test]
fn png_gif_and_webp_sizes_are_read_from_their_headers() {
    assert_eq!(
        inline_image_size(&url("image/png", &png(1280, 720))),
        Some((1280, 720))
    );
    let mut gif = b"GIF89a".to_vec();
    gif.extend_from_slice(&[0x20, 0x03, 0x58, 0x02, 0, 0, 0]);
    assert_eq!(inline_image_size(&url("image/gif", &gif)), Some((800, 600)));
    // Lossy: a frame header after the chunk header.
    let mut vp8 = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0".to_vec();
    vp8.extend_from_slice(&[0x9D, 0x01, 0x2A, 0x9D, 0x01, 0x2A]);
    vp8.extend_from_slice(&640u16.to_le_bytes());
    vp8.extend_from_slice(&480u16.to_le_bytes());
    assert_eq!(
        inline_image_size(&url("image/webp", &vp8)),
        Some((640, 480))
    );
    // Lossless: 14-bit fields less one after the signature byte.
    let bits: u32 = (1023 - 1) | ((511 - 1) << 14);
    let mut vp8l = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2F".to_vec();
    vp8l.extend_from_slice(&bits.to_le_bytes());
    vp8l.extend_from_slice(&[0; 5]);
    assert_eq!(
        inline_image_size(&url("image/webp", &vp8l)),
        Some((1023, 511))
    );
    // Extended: 24-bit fields less one.
    let mut vp8x = b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\0\0\0\0".to_vec();
    vp8x.extend_from_slice(&[0x7F, 0x07, 0x00, 0x37, 0x04, 0x00, 0, 0]);
    assert_eq!(
        inline_image_size(&url("image/webp", &vp8x)),
        Some((1920, 1080))
    );
}

#[test]
fn a_jpeg_size_is_found_after_its_metadata_segments() {
    let mut jpeg = vec![0xFF, 0xD8];
    // An APP1 (EXIF) segment of 3,000 bytes (its length counts its own two bytes), then a
    // quantisation table.
    jpeg.extend_from_slice(&[0xFF, 0xE1, 0x0B, 0xBA]);
    jpeg.extend(std::iter::repeat_n(0x45, 3_000));
    jpeg.extend_from_slice(&[0xFF, 0xDB, 0x00, 0x04, 0x00, 0x01]);
    // SOF2 (progressive): precision, height 900, width 1600.
    jpeg.extend_from_slice(&[0xFF, 0xC2, 0x00, 0x11, 0x08, 0x03, 0x84, 0x06, 0x40, 0x03]);
    jpeg.extend_from_slice(&[0; 12]);
    assert_eq!(
        inline_image_size(&url("image/jpeg", &jpeg)),
        Some((1600, 900))
    );
    // A DHT marker (0xC4) is not a frame.
    let mut dht = vec![0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x04, 0x00, 0x00];
    dht.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x20, 0x03]);
    assert_eq!(inline_image_size(&url("image/jpeg", &dht)), Some((32, 16)));
}

#[test]
fn what_is_not_a_known_image_has_no_size() {
    assert_eq!(inline_image_size("https://example.com/a.png"), None);
    assert_eq!(
        inline_image_size(&url("image/svg+xml", b"<svg></svg>")),
        None
    );
    assert_eq!(inline_image_size("data:image/png;base64,!!!!"), None);
    assert_eq!(inline_image_size(&url("image/png", &png(0, 10))), None);
    // Cut short.
    assert_eq!(
        inline_image_size(&url("image/png", &png(10, 10)[..14])),
        None
    );
}

#[test]
fn anthropic_counts_pixels_over_750_after_scaling_down_to_its_limits() {
    // The documented examples: 200×200 is 54 tokens, 1000×1000 about 1,334, 1092×1092 about
    // 1,590 (the largest square kept as it is).
    assert_eq!(anthropic_image_tokens(200, 200), 54);
    assert_eq!(anthropic_image_tokens(1_000, 1_000), 1_334);
    assert_eq!(anthropic_image_tokens(1_092, 1_092), 1_590);
    // Larger images are scaled down: never more than 1,600 tokens.
    assert!(anthropic_image_tokens(4_000, 3_000) <= 1_600);
    assert!(anthropic_image_tokens(4_000, 3_000) > 1_550);
    // A long edge past 1,568 pixels is scaled to it.
    assert_eq!(
        anthropic_image_tokens(3_136, 200),
        anthropic_image_tokens(1_568, 100)
    );
    assert_eq!(anthropic_image_tokens(0, 100), 0);
    assert_eq!(IMAGE_TOKENS_ESTIMATE, 1_844);
}

#[test]
fn the_inline_images_of_an_item_are_listed_in_order() {
    let first = url("image/png", &png(10, 10));
    let second = url("image/png", &png(20, 20));
    let message = ResponseItem::Message {
        id: None,
        role: "user".to_string(),
        content: vec![
            ContentItem::InputText {
                text: "look".to_string(),
            },
            ContentItem::InputImage {
                image_url: first.clone(),
                detail: None,
            },
            ContentItem::InputImage {
                image_url: "https://example.com/remote.png".to_string(),
                detail: None,
            },
            ContentItem::InputImage {
                image_url: second.clone(),
                detail: None,
            },
        ],
        extra: agentctx_protocol::ExtraFields::new(),
    };
    assert_eq!(inline_images(&message), [first.as_str(), second.as_str()]);
}
