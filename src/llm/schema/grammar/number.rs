//! The states of a JSON number being read (RFC 8259 grammar; `integer` refuses a fraction or exponent).

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum NumSt {
    Start,
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
}

impl NumSt {
    pub(super) fn complete(self) -> bool {
        matches!(self, NumSt::Zero | NumSt::Int | NumSt::Frac | NumSt::Exp)
    }
    pub(super) fn next(self, b: u8, integer: bool) -> Option<NumSt> {
        use NumSt::*;
        let digit = b.is_ascii_digit();
        Some(match (self, b) {
            (Start, b'-') => Minus,
            (Start | Minus, b'0') => Zero,
            (Start | Minus, _) if digit => Int,
            (Int, _) if digit => Int,
            (Zero | Int, b'.') if !integer => Dot,
            (Dot | Frac, _) if digit => Frac,
            (Zero | Int | Frac, b'e' | b'E') if !integer => E,
            (E, b'+' | b'-') => ESign,
            (E | ESign | Exp, _) if digit => Exp,
            _ => return None,
        })
    }
}
