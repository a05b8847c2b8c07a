"""Irish Chess Union rules: the 2005 text ("icu-2005") and the practice from 1999 ("icu-1999")."""
