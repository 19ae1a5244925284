//! The named layouts of the records table (the famous openings the product contract lists by
//! name, with the layouts published for them): the classic set's openings and a
//! few of other piece sets.

/// `(name, layout)` pairs.
pub const LAYOUTS: &[(&str, &str)] = &[
    ("横刀立马", "VCCV/VCCV/VHHV/VSSV/S..S"),
    ("指挥若定", "VCCV/VCCV/SHHS/VSSV/V..V"),
    ("将拥曹营", ".CC./VCCV/VVVV/SVVS/HHSS"),
    ("齐头并进", "VCCV/VCCV/SSSS/VHHV/V..V"),
    ("兵分三路", "SCCS/VCCV/VHHV/VSSV/V..V"),
    ("雨声淅沥", "VCCS/VCCS/VHHV/VV.V/SV.S"),
    ("左右布兵", "SCCS/SCCS/VVVV/VVVV/.HH."),
    ("桃花园中", "SCCS/VCCV/VVVV/SVVS/.HH."),
    ("一路进军", "VCCS/VCCS/VVVS/VVVS/.HH."),
    ("一路顺风", "VCCS/VCCS/VHHV/VSVV/.SV."),
    ("围而不歼", "VCCS/VCCS/VHHS/VVVS/.VV."),
    ("捷足先登", "SCCS/SCCS/.HH./VVVV/VVVV"),
    ("插翅难飞", "VCCS/VCCS/HHSS/VHHV/V..V"),
    ("守口如瓶", "VCCV/VCCV/SV.S/SV.S/HHHH"),
    ("横马当关", "VCCV/VCCV/HHHH/SV.S/SV.S"),
    ("层层设防", "SCCS/VCCV/VHHV/SHHS/.HH."),
    ("水泄不通", "VCCS/VCCS/HHHH/HHHH/S..S"),
    ("峰回路转", "SSSV/CCVV/CCVV/.HHV/.SHH"),
];

#[cfg(test)]
mod tests {
    #[test]
    fn every_named_layout_parses() {
        for (name, layout) in super::LAYOUTS {
            let p = crate::parse(layout).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(crate::render(&p.board), *layout, "{name}");
        }
    }
}
