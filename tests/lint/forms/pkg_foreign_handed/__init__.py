"""A backend that hands itself to helpers of another module (issue 13): what they keep on it,
and what they decide on its flags, is its own; findings stand at the call handing it."""
