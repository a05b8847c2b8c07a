"""Irish Chess Union rules: the 2005 text ("icu-2005"), the practice from 1999 ("icu-1999") and
its algorithm versions 1.1–1.3 ("icu-2012", "icu-2013", "icu-2014"), by section date."""
