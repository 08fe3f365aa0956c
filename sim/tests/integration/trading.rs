#![allow(unused_imports)]
use crate::common::*;
